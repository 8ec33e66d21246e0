//! The files of `pgntune split` as outputs (see
//! [`crate::atomic::Recognise`]).

use std::path::Path;

use super::{MANIFEST, Manifest};
use crate::atomic::{Recognise, head};

/// What `pgntune split` writes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SplitOutput {
    /// A shard (PGN, maybe compressed): recognised by the split manifest
    /// beside it, which lists it.
    Shard,
    /// The manifest.
    Manifest,
}

impl Recognise for SplitOutput {
    fn describe(&self) -> &'static str {
        match self {
            SplitOutput::Shard => "a shard listed in the split manifest beside it",
            SplitOutput::Manifest => "a split manifest",
        }
    }

    fn recognises(&self, path: &Path) -> bool {
        if head(path).is_err() {
            return false;
        }
        match self {
            SplitOutput::Shard => is_listed_shard(path),
            SplitOutput::Manifest => Manifest::load(path).is_ok(),
        }
    }
}

/// A file the split manifest in its folder lists as a shard.
fn is_listed_shard(path: &Path) -> bool {
    let (Some(folder), Some(name)) = (path.parent(), path.file_name()) else { return false };
    let folder = if folder.as_os_str().is_empty() { Path::new(".") } else { folder };
    Manifest::load(&folder.join(MANIFEST)).is_ok_and(|m| m.shards.iter().any(|s| name == s.file.as_str()))
}
