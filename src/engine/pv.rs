//! The triangular principal-variation table: at every ply, the best line
//! found so far from that ply on. A node that raises alpha copies its
//! child's line behind its own move.

use shakmaty::Move;

use super::params::MAX_PLY;

/// Principal variations per ply.
#[derive(Clone, Debug)]
pub struct PvTable {
    lines: Box<[[Option<Move>; MAX_PLY]; MAX_PLY]>,
    lengths: [usize; MAX_PLY],
}

impl Default for PvTable {
    fn default() -> Self {
        PvTable { lines: Box::new([[None; MAX_PLY]; MAX_PLY]), lengths: [0; MAX_PLY] }
    }
}

impl PvTable {
    /// Empties the line at `ply` (every node does this on entry).
    #[inline]
    pub fn clear(&mut self, ply: usize) {
        self.lengths[ply] = 0;
    }

    /// Sets the line at `ply` to `m` followed by the line at `ply + 1`.
    #[inline]
    pub fn update(&mut self, ply: usize, m: Move) {
        let child_len = if ply + 1 < MAX_PLY { self.lengths[ply + 1] } else { 0 };
        let len = (child_len + 1).min(MAX_PLY - ply);
        self.lines[ply][0] = Some(m);
        for i in 1..len {
            self.lines[ply][i] = self.lines[ply + 1][i - 1];
        }
        self.lengths[ply] = len;
    }

    /// The line at `ply`.
    pub fn line(&self, ply: usize) -> Vec<Move> {
        self.lines[ply][..self.lengths[ply]].iter().flatten().copied().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Chess, Position};

    #[test]
    fn lines_are_built_from_the_leaves_up() {
        let moves = Chess::default().legal_moves();
        let mut pv = PvTable::default();
        pv.clear(2);
        pv.update(2, moves[2]);
        pv.update(1, moves[1]);
        pv.update(0, moves[0]);
        assert_eq!(pv.line(0), vec![moves[0], moves[1], moves[2]]);
        pv.clear(1);
        pv.update(0, moves[3]);
        assert_eq!(pv.line(0), vec![moves[3]]);
    }
}
