//! Reading the cookies a request carries.

use axum::http::{HeaderMap, header};

/// A cookie's value from the request's `Cookie` headers.
pub(crate) fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.to_owned())
        .filter(|v| !v.is_empty())
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;
    use crate::session::{PRE_COOKIE, SESSION_COOKIE};

    #[test]
    fn cookies_are_read_by_name() {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::COOKIE,
            HeaderValue::from_static("a=1; hb_session=hb_x; hb_pre=p"),
        );
        assert_eq!(cookie(&headers, SESSION_COOKIE).as_deref(), Some("hb_x"));
        assert_eq!(cookie(&headers, PRE_COOKIE).as_deref(), Some("p"));
        assert_eq!(cookie(&headers, "b"), None);
    }
}
