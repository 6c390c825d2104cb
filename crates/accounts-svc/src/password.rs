//! Passwords for the pages' sign-in: checked for length, stored only as Argon2id hashes (PHC
//! strings: algorithm, parameters, salt and hash in one text), verified in constant time.
//! Hashing costs tens of milliseconds of CPU on purpose, so callers run it off the async
//! threads (`tokio::task::spawn_blocking`).

use argon2::Argon2;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};

/// Fewest and most characters a password may have.
pub const MIN_CHARS: usize = 8;
pub const MAX_CHARS: usize = 128;

/// Why a new password is refused, in words for the person choosing it.
pub fn check(password: &str) -> Result<(), String> {
    let chars = password.chars().count();
    if chars < MIN_CHARS {
        return Err(format!(
            "a password needs at least {MIN_CHARS} characters; this one has {chars}"
        ));
    }
    if chars > MAX_CHARS {
        return Err(format!(
            "a password has at most {MAX_CHARS} characters; this one has {chars}"
        ));
    }
    if password.trim().is_empty() {
        return Err("a password cannot be only spaces".to_owned());
    }
    if password.chars().any(char::is_control) {
        return Err("a password cannot hold control characters (tabs, new lines)".to_owned());
    }
    Ok(())
}

/// The PHC string of `password` with a new random salt (Argon2id, the crate's default
/// parameters: 19 MiB, 2 passes, 1 lane, OWASP's minimum).
pub fn hash(password: &str) -> Result<String, String> {
    let mut salt = [0u8; 16];
    getrandom::fill(&mut salt).map_err(|error| format!("no randomness for a salt: {error}"))?;
    let salt = SaltString::encode_b64(&salt).map_err(|error| error.to_string())?;
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|hash| hash.to_string())
        .map_err(|error| error.to_string())
}

/// Whether `password` matches the PHC string `stored` (false for a malformed one).
#[must_use]
pub fn verify(password: &str, stored: &str) -> bool {
    PasswordHash::new(stored).is_ok_and(|parsed| {
        Argon2::default()
            .verify_password(password.as_bytes(), &parsed)
            .is_ok()
    })
}

/// A hash to verify against when the name is unknown, so that an unknown name costs what a
/// wrong password costs and the answer's timing does not tell which it was.
pub fn decoy() -> &'static str {
    static DECOY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DECOY.get_or_init(|| hash("not anyone's password").unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hash_verifies_its_password_only_and_never_holds_it() {
        let stored = hash("correct horse battery").expect("hash");
        assert!(stored.starts_with("$argon2id$"), "{stored}");
        assert!(!stored.contains("correct horse"));
        assert!(verify("correct horse battery", &stored));
        assert!(!verify("correct horse battery!", &stored));
        assert!(!verify("correct horse battery", "not a phc string"));
        // A new salt each time.
        assert_ne!(stored, hash("correct horse battery").expect("hash"));
        assert!(!verify("anything", decoy()));
    }

    #[test]
    fn short_long_blank_and_control_passwords_are_refused() {
        assert!(check("seven77").is_err());
        assert!(check("eight888").is_ok());
        assert!(check(&"x".repeat(MAX_CHARS)).is_ok());
        assert!(check(&"x".repeat(MAX_CHARS + 1)).is_err());
        assert!(check("          ").is_err());
        assert!(check("tab\there!").is_err());
        // Characters, not bytes: eight Cyrillic letters are enough.
        assert!(check("пароль12").is_ok());
    }
}
