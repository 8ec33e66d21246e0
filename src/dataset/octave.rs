//! Octave's own text format. `load("rows.txt")` defines `X` (features, one
//! row per position), `y` (white's score: 0, 0.5, 1), `game` and `ply`
//! column vectors, and `features`, the column names as a char matrix.
//!
//! The format puts each matrix's row count in its header, before the data,
//! so rows are spooled to anonymous temporary files while they stream in
//! and copied behind the headers at the end: memory stays bounded.

use std::fs::File;
use std::io::{self, BufWriter, Seek, Write};
use std::path::Path;

use super::{DatasetError, RowBatch, RowWriter, Schema};
use crate::atomic::{AtomicFile, OutputError};

pub(super) struct OctaveWriter {
    file: AtomicFile,
    layout: crate::features::FeatureLayout,
    dense: Vec<f64>,
    features: Vec<String>,
    x: BufWriter<File>,
    y: BufWriter<File>,
    game: BufWriter<File>,
    ply: BufWriter<File>,
    rows: u64,
}

fn spool() -> io::Result<BufWriter<File>> {
    Ok(BufWriter::new(tempfile::tempfile()?))
}

impl OctaveWriter {
    pub(super) fn create(path: &Path, schema: &Schema) -> Result<OctaveWriter, DatasetError> {
        let file = AtomicFile::create(path)?;
        let err = |e| DatasetError::Output(OutputError::new(path, e));
        Ok(OctaveWriter {
            file,
            features: schema.features.clone(),
            layout: schema.layout.clone(),
            dense: vec![0.0; schema.layout.len()],
            x: spool().map_err(err)?,
            y: spool().map_err(err)?,
            game: spool().map_err(err)?,
            ply: spool().map_err(err)?,
            rows: 0,
        })
    }

    fn write_rows(&mut self, batch: &RowBatch) -> io::Result<()> {
        let mut numbers = super::number_text::NumberText::new();
        let mut line = Vec::with_capacity(64);
        for i in 0..batch.len() {
            line.clear();
            batch.dense_row(i, &self.layout, &mut self.dense);
            for &v in &self.dense {
                line.push(b' ');
                numbers.push(&mut line, v);
            }
            line.push(b'\n');
            self.x.write_all(&line)?;
            writeln!(self.y, " {}", batch.results[i].score_str())?;
            writeln!(self.game, " {}", batch.games[i])?;
            writeln!(self.ply, " {}", batch.plies[i])?;
        }
        self.rows += batch.len() as u64;
        Ok(())
    }

    fn assemble(mut self) -> io::Result<AtomicFile> {
        let out = &mut self.file;
        writeln!(out, "# Created by pgntune {}", env!("CARGO_PKG_VERSION"))?;
        let columns = self.features.len();
        for (name, cols, spool) in [("X", columns, self.x), ("y", 1, self.y), ("game", 1, self.game), ("ply", 1, self.ply)] {
            writeln!(out, "# name: {name}\n# type: matrix\n# rows: {}\n# columns: {cols}", self.rows)?;
            let mut spool = spool.into_inner().map_err(|e| e.into_error())?;
            spool.rewind()?;
            io::copy(&mut spool, out)?;
            writeln!(out, "\n")?;
        }
        // Column names as a char matrix, padded to equal width as Octave stores them.
        // Octave counts bytes; pad with spaces to the longest name in bytes.
        let width = self.features.iter().map(String::len).max().unwrap_or(0);
        writeln!(out, "# name: features\n# type: string\n# elements: {}", self.features.len())?;
        for name in &self.features {
            writeln!(out, "# length: {width}\n{name}{}", " ".repeat(width - name.len()))?;
        }
        writeln!(out, "\n")?;
        Ok(self.file)
    }
}

impl RowWriter for OctaveWriter {
    fn write(&mut self, batch: &RowBatch) -> Result<(), DatasetError> {
        self.write_rows(batch).map_err(|e| OutputError::new(self.file.target(), e).into())
    }

    fn finish(self: Box<Self>) -> Result<(), DatasetError> {
        let target = self.file.target().to_path_buf();
        let file = self.assemble().map_err(|e| OutputError::new(&target, e))?;
        Ok(file.commit()?)
    }
}
