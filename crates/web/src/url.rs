//! What a URL carries: ids in the path, values in the query string.

use std::fmt::Write as _;

/// A game id from the path (`None`: not a positive number).
pub(crate) fn game_id(text: &str) -> Option<i64> {
    text.parse::<i64>().ok().filter(|id| *id > 0)
}

/// `key`'s value in a URL query string, percent-decoded (`None` if absent or not UTF-8).
pub(crate) fn query_value(query: Option<&str>, key: &str) -> Option<String> {
    query_values(query, key).into_iter().next()
}

/// Every value of `key` in a URL query string, in order, percent-decoded (those not UTF-8 left
/// out).
pub(crate) fn query_values(query: Option<&str>, key: &str) -> Vec<String> {
    query
        .unwrap_or_default()
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .filter(|(k, _)| *k == key)
        .filter_map(|(_, v)| percent_decode(v))
        .collect()
}

/// A query value percent-decoded (`+` is a space, as forms send it); `None` if not UTF-8.
fn percent_decode(raw: &str) -> Option<String> {
    let bytes = raw.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                (Some(high), Some(low)) => {
                    out.push((high * 16 + low) as u8);
                    i += 3;
                }
                _ => {
                    out.push(b'%');
                    i += 1;
                }
            },
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

/// `text` percent-encoded for a URL query value (all but the unreserved characters).
#[must_use]
pub fn query_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            out.push(byte as char);
        } else {
            let _ = write!(out, "%{byte:02X}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_values_round_trip_through_percent_encoding() {
        let token = "hanniball/untimed|0||40977a0000000000|12|3|4 é";
        let query = format!("a=1&page={}&b=2", query_encode(token));
        assert!(!query_encode(token).contains('|'));
        assert_eq!(query_value(Some(&query), "page").as_deref(), Some(token));
        assert_eq!(query_value(Some("x=%zz%4"), "x").as_deref(), Some("%zz%4"));
        assert_eq!(query_value(Some("x=1"), "y"), None);
        assert_eq!(query_value(None, "x"), None);
        assert_eq!(
            query_value(Some("q=white+cup"), "q").as_deref(),
            Some("white cup")
        );
        assert_eq!(
            query_values(Some("back=a&x=1&back=b%7C&back=%ff"), "back"),
            ["a", "b|"]
        );
    }

    #[test]
    fn game_ids_are_positive_numbers() {
        assert_eq!(game_id("12"), Some(12));
        for bad in ["0", "-3", "x", "", "99999999999999999999"] {
            assert_eq!(game_id(bad), None, "{bad}");
        }
    }
}
