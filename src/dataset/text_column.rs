//! A column of strings stored end to end, for the FEN and tag columns of a
//! [`RowBatch`](super::RowBatch): one buffer and each row's end, so that a
//! row's FEN or tag value costs no allocation of its own (a `String` per
//! row and column was one allocation per position with `--fen`/`--tags`).

use std::fmt::{Display, Write};

/// Strings end to end: row `i` is `text[ends[i - 1]..ends[i]]`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TextColumn {
    text: String,
    ends: Vec<usize>,
}

impl TextColumn {
    /// Number of rows.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// True when there are no rows.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Row `i`, or `None` past the end (a column the schema does not use
    /// stays empty).
    pub fn get(&self, i: usize) -> Option<&str> {
        let end = *self.ends.get(i)?;
        Some(&self.text[self.start(i)..end])
    }

    fn start(&self, i: usize) -> usize {
        if i == 0 { 0 } else { self.ends[i - 1] }
    }

    /// Appends a row.
    pub fn push(&mut self, value: &str) {
        self.text.push_str(value);
        self.ends.push(self.text.len());
    }

    /// Appends a row written by `value`'s `Display`, straight into the buffer.
    pub fn push_display(&mut self, value: impl Display) {
        write!(self.text, "{value}").expect("writing to a String cannot fail");
        self.ends.push(self.text.len());
    }

    /// The rows in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        (0..self.len()).map(|i| &self.text[self.start(i)..self.ends[i]])
    }

    /// Appends every row of `other`.
    pub fn append(&mut self, other: &TextColumn) {
        let base = self.text.len();
        self.text.push_str(&other.text);
        self.ends.extend(other.ends.iter().map(|e| e + base));
    }

    /// Appends the rows `rows` of `other` (those past its end: none).
    pub fn append_range(&mut self, other: &TextColumn, rows: std::ops::Range<usize>) {
        let rows = rows.start.min(other.len())..rows.end.min(other.len());
        if rows.is_empty() {
            return;
        }
        let (from, to) = (other.start(rows.start), other.ends[rows.end - 1]);
        let base = self.text.len();
        self.text.push_str(&other.text[from..to]);
        self.ends.extend(other.ends[rows].iter().map(|e| e - from + base));
    }

    /// Keeps the first `rows` rows.
    pub fn truncate(&mut self, rows: usize) {
        if rows < self.len() {
            self.text.truncate(self.start(rows));
            self.ends.truncate(rows);
        }
    }
}

impl<S: AsRef<str>> FromIterator<S> for TextColumn {
    fn from_iter<I: IntoIterator<Item = S>>(rows: I) -> TextColumn {
        let mut column = TextColumn::default();
        for row in rows {
            column.push(row.as_ref());
        }
        column
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_come_back_as_pushed_through_append_ranges_and_truncate() {
        let mut a: TextColumn = ["", "e4", "Nf3 d5"].into_iter().collect();
        a.push_display(format_args!("{}-{}", 1, 0));
        assert_eq!(a.iter().collect::<Vec<_>>(), ["", "e4", "Nf3 d5", "1-0"]);
        assert_eq!(a.get(3), Some("1-0"));
        assert_eq!(a.get(4), None);
        let b: TextColumn = ["x", ""].into_iter().collect();
        a.append(&b);
        assert_eq!(a.iter().collect::<Vec<_>>(), ["", "e4", "Nf3 d5", "1-0", "x", ""]);
        let mut tail = TextColumn::default();
        tail.append_range(&a, 2..9);
        assert_eq!(tail.iter().collect::<Vec<_>>(), ["Nf3 d5", "1-0", "x", ""]);
        let mut middle = TextColumn::default();
        middle.append_range(&a, 1..3);
        middle.append_range(&a, 4..4);
        assert_eq!(middle.iter().collect::<Vec<_>>(), ["e4", "Nf3 d5"]);
        a.truncate(2);
        assert_eq!(a.iter().collect::<Vec<_>>(), ["", "e4"]);
        tail.truncate(1);
        assert_eq!(tail.iter().collect::<Vec<_>>(), ["Nf3 d5"]);
        tail.push("after");
        assert_eq!(tail.iter().collect::<Vec<_>>(), ["Nf3 d5", "after"]);
        let mut nothing = TextColumn::default();
        nothing.append_range(&a, 5..7);
        assert!(nothing.is_empty());
        a.truncate(9);
        assert_eq!(a.len(), 2);
    }
}
