//! Aligned text tables for the terminal: text columns left-aligned, numbers right-aligned.
//! Widths are terminal columns, so names in any script line up (李明 takes four, Müller six).

use unicode_width::UnicodeWidthStr;

/// Renders `rows` (the first is the header) as aligned columns separated by two spaces.
pub fn render(rows: &[Vec<String>]) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut widths = vec![0; columns];
    let mut numeric = vec![true; columns];
    for row in rows {
        for (i, cell) in row.iter().enumerate() {
            widths[i] = widths[i].max(cell.width());
        }
    }
    for row in rows.iter().skip(1) {
        for (i, cell) in row.iter().enumerate() {
            if !cell.is_empty() && cell.parse::<f64>().is_err() && cell != "-" {
                numeric[i] = false;
            }
        }
    }
    let mut out = String::new();
    for row in rows {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            if i > 0 {
                line.push_str("  ");
            }
            let pad = widths[i] - cell.width();
            if numeric[i] {
                line.push_str(&" ".repeat(pad));
                line.push_str(cell);
            } else {
                line.push_str(cell);
                line.push_str(&" ".repeat(pad));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_in_any_script_line_up() {
        let rows: Vec<Vec<String>> = [["name", "points"], ["李明", "2"], ["Müller", "1.5"]]
            .iter()
            .map(|r| r.iter().map(ToString::to_string).collect())
            .collect();
        assert_eq!(
            render(&rows),
            "name    points\n李明         2\nMüller     1.5\n"
        );
    }
}
