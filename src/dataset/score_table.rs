//! The score table: for each material balance (on a piece-value scale), the
//! number of rows, white's points and white's mean score. pgnlearn wrote it
//! as `probability.txt`; pgntune writes CSV.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use super::{DatasetError, RowBatch, Schema};
use crate::atomic::{AtomicFile, OutputError};

/// The classical scale, in pawns: P 1, N 3, B 3, R 5, Q 9.
pub const CLASSICAL_SCALE: [(&str, i64); 5] = [("P", 1), ("N", 3), ("B", 3), ("R", 5), ("Q", 9)];

/// Rows and points per material balance.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ScoreTable {
    /// The rows' feature layout.
    layout: crate::features::FeatureLayout,
    /// Value of each feature column on the scale (0 for columns not on it).
    weights: Vec<i64>,
    /// balance → (rows, points for white).
    cells: BTreeMap<i64, (u64, f64)>,
}

/// One line of the table.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScoreCell {
    /// Material balance in pawns, white minus black.
    pub balance: i64,
    /// Number of rows with this balance.
    pub rows: u64,
    /// White's points over those rows (1 per win, 0.5 per draw).
    pub points: f64,
}

impl ScoreCell {
    /// White's mean score.
    pub fn mean(&self) -> f64 {
        self.points / self.rows as f64
    }
}

impl ScoreTable {
    /// A table on `scale` (column name → value in pawns) for rows of `schema`.
    /// Fails if none of the scale's columns is in the schema.
    pub fn new(schema: &Schema, scale: &[(&str, i64)]) -> Result<ScoreTable, String> {
        let weights: Vec<i64> = schema.features.iter().map(|c| scale.iter().find(|(name, _)| name == c).map_or(0, |&(_, v)| v)).collect();
        if weights.iter().all(|&w| w == 0) {
            return Err("the score table needs the material features P, N, B, R, Q".into());
        }
        Ok(ScoreTable { layout: schema.layout.clone(), weights, cells: BTreeMap::new() })
    }

    /// Adds every row of `batch`.
    pub fn add(&mut self, batch: &RowBatch) {
        let mut x = vec![0.0; self.layout.len()];
        for i in 0..batch.len() {
            batch.dense_row(i, &self.layout, &mut x);
            let balance: i64 = x.iter().zip(&self.weights).map(|(&x, &w)| x.round() as i64 * w).sum();
            let cell = self.cells.entry(balance).or_insert((0, 0.0));
            cell.0 += 1;
            cell.1 += batch.results[i].score();
        }
    }

    /// The lines of the table, by increasing balance.
    pub fn cells(&self) -> impl Iterator<Item = ScoreCell> + '_ {
        self.cells.iter().map(|(&balance, &(rows, points))| ScoreCell { balance, rows, points })
    }

    /// Writes `balance,rows,points,score` CSV to `path` atomically.
    pub fn write_csv(&self, path: &Path) -> Result<(), DatasetError> {
        let mut out = AtomicFile::create(path)?;
        let mut text = String::from("balance,rows,points,score\n");
        for c in self.cells() {
            text.push_str(&format!("{},{},{},{:.6}\n", c.balance, c.rows, c.points, c.mean()));
        }
        out.write_all(text.as_bytes()).map_err(|e| OutputError::new(path, e))?;
        Ok(out.commit()?)
    }
}
