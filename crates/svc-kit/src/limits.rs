//! Bounds on what a request may carry, checked before a service does anything with it, and the
//! rule that an error message quotes client input only briefly.

/// Longest quote of client input in an error message, in characters.
pub const QUOTE_CHARS: usize = 64;

/// Longest turn text (four steps need about 40 characters).
pub const TURN: usize = 256;
/// Longest short identifier: a game kind, ruleset, ladder, player name, operator (a name's
/// 40 characters of up to 4 bytes each fit).
pub const NAME: usize = 160;
/// Longest free text: a tag, a tournament name, a reason.
pub const TEXT: usize = 1_000;
/// Longest idempotency key or page token.
pub const KEY: usize = 256;
/// Most ids in one request.
pub const IDS: usize = 1_000;
/// Most scope names in one request (there are four; repeats are allowed, floods are not).
pub const SCOPES: usize = 16;

/// `value` for an error message: at most [`QUOTE_CHARS`] characters, then `…`, Debug-quoted (so
/// control characters are visible and nothing breaks a log line).
#[must_use]
pub fn quote(value: &str) -> String {
    let mut chars = value.chars();
    let head: String = chars.by_ref().take(QUOTE_CHARS).collect();
    if chars.next().is_some() {
        format!("{head:?}…")
    } else {
        format!("{head:?}")
    }
}

/// Refuses a text field longer than `max` bytes, or holding a control character other than tab
/// and line breaks (PostgreSQL cannot store NUL, and no name or tag needs the others), naming
/// the field and the limit.
pub fn text(field: &str, value: &str, max: usize) -> Result<(), tonic::Status> {
    if value.len() > max {
        return Err(tonic::Status::invalid_argument(format!(
            "{field} is {} bytes long; the limit is {max} bytes",
            value.len()
        )));
    }
    if let Some(c) = value
        .chars()
        .find(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
    {
        return Err(tonic::Status::invalid_argument(format!(
            "{field} holds the control character {c:?} (U+{:04X}); take it out and send the \
             text again",
            u32::from(c)
        )));
    }
    Ok(())
}

/// Longest search query, in characters (a name has at most 40; a few of them, with room).
pub const QUERY_CHARS: usize = 100;

/// The words of a search query (`field`), or why it is refused: over [`QUERY_CHARS`]
/// characters, or holding a control character other than whitespace. A blank query is no
/// words; whether that is allowed is the call's to say.
pub fn query(field: &str, value: &str) -> Result<hanniball_db::search::Words, tonic::Status> {
    text(field, value, QUERY_CHARS * 4)?;
    let chars = value.trim().chars().count();
    if chars > QUERY_CHARS {
        return Err(tonic::Status::invalid_argument(format!(
            "{field} is {chars} characters long; the limit is {QUERY_CHARS} characters"
        )));
    }
    Ok(hanniball_db::search::Words::new(value))
}

/// Refuses a repeated field with more than `max` items, naming the field and the limit.
pub fn list(field: &str, len: usize, max: usize) -> Result<(), tonic::Status> {
    if len > max {
        return Err(tonic::Status::invalid_argument(format!(
            "{field} has {len} items; the limit is {max}"
        )));
    }
    Ok(())
}

/// The largest request a service decodes (a turn, a tournament's TRF, a page request): far above
/// any legitimate request, far below what would hurt.
pub const MAX_REQUEST_BYTES: usize = 256 * 1024;

/// How long a server stream waits for its client to read before it gives up on it: a client
/// that stops reading (stuck, or hostile) holds no task and no subscription beyond this.
pub const STALLED: std::time::Duration = std::time::Duration::from_secs(60);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_are_short_and_fields_are_named() {
        assert_eq!(quote("d4-c6"), "\"d4-c6\"");
        let long = "é".repeat(1000);
        let q = quote(&long);
        assert!(q.ends_with('…'));
        assert_eq!(q.chars().count(), QUOTE_CHARS + 3);
        assert!(text("turn", "abc", 3).is_ok());
        let e = text("turn", "abcd", 3).unwrap_err();
        assert_eq!(e.code(), tonic::Code::InvalidArgument);
        assert!(e.message().contains("turn") && e.message().contains('3'));
        let e = text("name", "a\0b", 10).unwrap_err();
        assert_eq!(e.code(), tonic::Code::InvalidArgument);
        assert!(
            e.message().contains("name") && e.message().contains("\\0"),
            "{e:?}"
        );
        assert!(text("reason", "two\nlines\tand a tab", 100).is_ok());
        assert_eq!(
            query("query", "  Zoë ÜNAL ").expect("short").words(),
            ["zoe", "unal"]
        );
        assert!(query("query", " ").expect("blank").is_empty());
        let e = query("query", &"ü".repeat(QUERY_CHARS + 1)).unwrap_err();
        assert_eq!(e.code(), tonic::Code::InvalidArgument);
        assert!(
            e.message().contains("query") && e.message().contains("100"),
            "{e:?}"
        );
        assert!(query("query", &"ü".repeat(QUERY_CHARS)).is_ok());
        assert!(query("query", "a\u{7}").is_err());
        assert!(list("player_ids", 2, 1).is_err());
        assert!(list("player_ids", 1, 1).is_ok());
    }
}
