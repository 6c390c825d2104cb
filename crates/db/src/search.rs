//! Finding rows by name: every word of a query somewhere in the name, case ignored in any script.
//!
//! SQLite's `LIKE` ignores case in ASCII only and PostgreSQL's not at all, so a store keeps a
//! search key beside each searchable name ([`search_key`]: the name without case or accents, its
//! words separated by single spaces) and matches the words of a query, folded the same way, against it
//! with `LIKE '%word%'` ([`Words::condition`]), `%`, `_` and the escape character escaped. The key
//! is written with the name and filled in for older rows by the migration that adds it
//! ([`fill_search_keys`]). A leading `%` uses no index: a search reads the key column of every row
//! in the database, never the rows into this process, and returns at most a page.

use sea_orm::sea_query::{Expr, ExprTrait, IntoColumnRef, LikeExpr, SimpleExpr};
use sea_orm::{ConnectionTrait, DbBackend, DbErr, Statement, Value};
use unicode_normalization::UnicodeNormalization;

use crate::Sql;

/// The escape character of the `LIKE` patterns (not a backslash: no backend reads it specially
/// in a string literal).
const ESCAPE: char = '!';

/// How `text` is compared in a search: case and accents ignored. Compatibility-decomposed
/// (NFKD: ligatures and full-width forms become plain letters), the accents of the Latin,
/// Greek and Cyrillic letters dropped (the combining diacritical marks, U+0300–U+036F; other
/// scripts keep their marks), lower-cased with the full folds lower case lacks (ß → ss, the
/// final sigma → σ) and letters whose stroke is no accent (ł → l, ø → o, đ → d, æ → ae, …),
/// recomposed (NFC), words separated by single spaces. So `zoe` finds Zoë, `lukasz` Łukasz
/// and `strasse` Straße.
#[must_use]
pub fn search_key(text: &str) -> String {
    let bare: String = text
        .nfkd()
        .filter(|c| !('\u{300}'..='\u{36f}').contains(c))
        .collect();
    let mut folded = String::with_capacity(bare.len());
    for c in bare.to_lowercase().chars() {
        match c {
            'ß' => folded.push_str("ss"),
            'ς' => folded.push('σ'),
            'ł' => folded.push('l'),
            'ø' => folded.push('o'),
            'đ' | 'ð' => folded.push('d'),
            'ħ' => folded.push('h'),
            'ŧ' => folded.push('t'),
            'ı' => folded.push('i'),
            'æ' => folded.push_str("ae"),
            'œ' => folded.push_str("oe"),
            'þ' => folded.push_str("th"),
            other => folded.push(other),
        }
    }
    let words: Vec<&str> = folded.split_whitespace().collect();
    words.join(" ").nfc().collect()
}

/// The words of a search query, folded as [`search_key`] folds names (the default: none).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Words {
    /// Each non-empty, without whitespace, in the order typed.
    words: Vec<String>,
}

impl Words {
    pub fn new(query: &str) -> Words {
        Words {
            words: search_key(query)
                .split(' ')
                .filter(|w| !w.is_empty())
                .map(str::to_owned)
                .collect(),
        }
    }

    /// No word at all: a blank query.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// The words, folded.
    #[must_use]
    pub fn words(&self) -> &[String] {
        &self.words
    }

    /// The search key a name equal to the whole query has (case ignored): such a name is ranked
    /// first.
    #[must_use]
    pub fn exact(&self) -> String {
        self.words.join(" ")
    }

    /// `key LIKE '%w1%' ESCAPE '!' AND key LIKE '%w2%' …` for the search key column `key`; true
    /// for no words.
    pub fn condition(&self, key: impl IntoColumnRef + Clone) -> SimpleExpr {
        let mut all = Expr::value(true);
        for (i, word) in self.words.iter().enumerate() {
            let like = Expr::col(key.clone())
                .like(LikeExpr::new(format!("%{}%", escape_like(word))).escape(ESCAPE));
            all = if i == 0 { like } else { all.and(like) };
        }
        all
    }

    /// 0 for a row whose key is the whole query, 1 for the others: an order that puts the exact
    /// match first.
    pub fn rank(&self, key: impl IntoColumnRef) -> SimpleExpr {
        Expr::case(Expr::col(key).eq(self.exact()), 0)
            .finally(1)
            .into()
    }
}

/// `word` as a `LIKE` pattern matching itself only: `%`, `_` and the escape character escaped.
#[must_use]
pub fn escape_like(word: &str) -> String {
    let mut escaped = String::with_capacity(word.len());
    for c in word.chars() {
        if matches!(c, '%' | '_') || c == ESCAPE {
            escaped.push(ESCAPE);
        }
        escaped.push(c);
    }
    escaped
}

/// `column` in an order by code point, the same on every backend (PostgreSQL's default collation
/// may follow a locale; SQLite compares bytes, which for UTF-8 is code point order).
#[must_use]
pub fn by_code_point(backend: DbBackend, column: &str) -> SimpleExpr {
    match backend {
        DbBackend::Postgres => Expr::cust(format!("{column} COLLATE \"C\"")),
        _ => Expr::cust(column.to_owned()),
    }
}

/// Rows of `table` filled in per statement by [`fill_search_keys`].
const FILL_BATCH: usize = 500;

/// Sets `key_column` of every row of `table` where it is empty to the [`search_key`] of
/// `name_column`, a batch of rows at a time by `id`: the migration that adds the column fills it
/// (the database cannot fold case the same way), and a store's `open` fills the keys of rows that
/// a binary from before the column wrote (during a rolling upgrade). A name is never blank, so a
/// filled key is never empty. The table and column names come from the caller's code, never from
/// input.
pub async fn fill_search_keys<C: ConnectionTrait>(
    db: &C,
    table: &str,
    name_column: &str,
    key_column: &str,
) -> Result<(), DbErr> {
    fill_keys(db, table, name_column, key_column, search_key).await
}

/// [`fill_search_keys`] with another key of the name (`key`), for other columns of its kind.
pub async fn fill_keys<C: ConnectionTrait>(
    db: &C,
    table: &str,
    name_column: &str,
    key_column: &str,
    key: fn(&str) -> String,
) -> Result<(), DbErr> {
    let backend = db.get_database_backend();
    let mut after = i64::MIN;
    loop {
        let mut select = Sql::new(
            backend,
            &format!("SELECT id, {name_column} FROM {table} WHERE {key_column} = '' AND id > "),
        );
        select.bind(after);
        select.push(&format!(" ORDER BY id LIMIT {FILL_BATCH}"));
        let rows = db.query_all_raw(select.statement()).await?;
        let Some(last) = rows.last() else {
            return Ok(());
        };
        after = last.try_get_by_index(0)?;
        let mut update = Sql::new(
            backend,
            &format!("UPDATE {table} SET {key_column} = CASE id"),
        );
        let mut ids = Vec::with_capacity(rows.len());
        for row in &rows {
            let id: i64 = row.try_get_by_index(0)?;
            let name: String = row.try_get_by_index(1)?;
            update.push(" WHEN ");
            update.bind(id);
            update.push(" THEN ");
            update.bind(key(&name));
            ids.push(Value::from(id));
        }
        update.push(&format!(" ELSE {key_column} END WHERE id IN "));
        update.bind_list(ids);
        let statement: Statement = update.statement();
        db.execute_raw(statement).await?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_ignore_case_in_every_script_and_how_accents_were_typed() {
        for (name, key) in [
            ("Müller", "muller"),
            ("MU\u{308}LLER", "muller"),
            ("Nguyễn Văn An", "nguyen van an"),
            ("  Zoë   Ünal ", "zoe unal"),
            ("Łukasz Żółć", "lukasz zolc"),
            ("Straße", "strasse"),
            ("STRASSE", "strasse"),
            ("Ærø Øster", "aero oster"),
            ("ﬁnal ＡＢＣ", "final abc"),
            ("李明", "李明"),
            ("ΟΔΥΣΣΕΥΣ", "οδυσσευσ"),
            ("Ὀδυσσεύς", "οδυσσευσ"),
            ("Ольга Петрова", "ольга петрова"),
            ("Пётр Йорк", "петр иорк"),
            ("देवनागरी", "देवनागरी"),
            ("bot-42.v2", "bot-42.v2"),
        ] {
            assert_eq!(search_key(name), key, "{name}");
        }
    }

    #[test]
    fn a_query_is_its_folded_words() {
        let words = Words::new("  ÜNAL\tzoë  ");
        assert_eq!(words.words(), ["unal", "zoe"]);
        assert_eq!(words.exact(), "unal zoe");
        assert!(Words::new(" \t ").is_empty());
    }

    #[test]
    fn wildcards_match_only_themselves() {
        assert_eq!(escape_like("50%_off!"), "50!%!_off!!");
        assert_eq!(escape_like("müller"), "müller");
    }
}
