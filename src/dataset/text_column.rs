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

    /// Keeps the first `rows` rows.
    pub fn truncate(&mut self, rows: usize) {
        if rows < self.len() {
            self.text.truncate(self.start(rows));
            self.ends.truncate(rows);
        }
    }

    /// Moves the rows from `at` on into a new column (an empty one when
    /// `at` is past the end).
    pub fn split_off(&mut self, at: usize) -> TextColumn {
        if at >= self.len() {
            return TextColumn::default();
        }
        let start = self.start(at);
        let ends = self.ends.split_off(at).into_iter().map(|e| e - start).collect();
        TextColumn { text: self.text.split_off(start), ends }
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
    fn rows_come_back_as_pushed_through_append_truncate_and_split() {
        let mut a: TextColumn = ["", "e4", "Nf3 d5"].into_iter().collect();
        a.push_display(format_args!("{}-{}", 1, 0));
        assert_eq!(a.iter().collect::<Vec<_>>(), ["", "e4", "Nf3 d5", "1-0"]);
        assert_eq!(a.get(3), Some("1-0"));
        assert_eq!(a.get(4), None);
        let b: TextColumn = ["x", ""].into_iter().collect();
        a.append(&b);
        assert_eq!(a.iter().collect::<Vec<_>>(), ["", "e4", "Nf3 d5", "1-0", "x", ""]);
        let tail = a.split_off(2);
        assert_eq!(a.iter().collect::<Vec<_>>(), ["", "e4"]);
        assert_eq!(tail.iter().collect::<Vec<_>>(), ["Nf3 d5", "1-0", "x", ""]);
        let mut tail = tail;
        tail.truncate(1);
        assert_eq!(tail.iter().collect::<Vec<_>>(), ["Nf3 d5"]);
        tail.push("after");
        assert_eq!(tail.iter().collect::<Vec<_>>(), ["Nf3 d5", "after"]);
        assert!(a.split_off(5).is_empty());
        a.truncate(9);
        assert_eq!(a.len(), 2);
    }
}
