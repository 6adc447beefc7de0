//! The commit-graph's corrected commit dates (generation numbers v2, its
//! `GDA2` and `GDO2` chunks: docs/technical/commit-graph.adoc in git), which
//! gix does not read. A commit's corrected date is its committer date, or
//! one more than its parents' highest corrected date where that is later:
//! like the topological level gix gives (v1), it is higher for a child
//! than for any parent, so a merge-base search may stop on it
//! (src/git/bases.rs); unlike the level, it follows the dates. A subtree
//! merge brings in a history whose commits have low levels (gitk's own,
//! merged into git/git) but recent dates: ordered by level, a search for
//! its bases paints the whole main history above those levels (67,000
//! commits on git/git) before it may stop; ordered by corrected date, it
//! stops at the dates the merged history was made at. git orders its own
//! searches so when every file of the graph has the chunk.
//!
//! The chunks are read from the same files gix mapped, found as gix finds
//! them (`objects/info/commit-graph`, else the chain in
//! `objects/info/commit-graphs`), each bounded by its chunk table and the
//! file's size, and used only when every file's commit list is, id for id
//! and in order, what gix's graph holds: a file replaced in between (a
//! `git gc` while gate runs) is not mixed with another's positions. Any
//! file without the chunks, or anything unexpected, leaves the levels.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// The mark of an offset kept in the overflow chunk.
const OVERFLOW: u32 = 1 << 31;

/// The corrected dates of every commit a commit-graph holds, by position.
pub(super) struct CorrectedDates {
    /// Each commit's offset from its committer date; with [`OVERFLOW`] set,
    /// the rest is an index into `overflow` (made global across files).
    offsets: Vec<u32>,
    overflow: Vec<u64>,
}

impl CorrectedDates {
    /// The corrected dates of `graph`, read from the files under
    /// `info` (a repository's `objects/info`); `None` where any file lacks
    /// them or does not hold what `graph` holds.
    pub(super) fn load(info: &Path, graph: &gix::commitgraph::Graph) -> Option<CorrectedDates> {
        let files = graph_files(info)?;
        let hash_len = graph.object_hash().len_in_bytes();
        let total = usize::try_from(graph.num_commits()).ok()?;
        let mut dates = CorrectedDates {
            offsets: Vec::with_capacity(total),
            overflow: Vec::new(),
        };
        for (dir, name) in files {
            let start = u32::try_from(dates.offsets.len()).ok()?;
            let chunks = read_chunks(&dir, &name, hash_len)?;
            if chunks.ids.len() % hash_len != 0 {
                return None;
            }
            let count = chunks.ids.len() / hash_len;
            if dates.offsets.len() + count > total || chunks.offsets.len() != count * 4 {
                return None;
            }
            // Id for id what gix's graph holds at these positions.
            for (i, id) in chunks.ids.chunks_exact(hash_len).enumerate() {
                let pos = start.checked_add(u32::try_from(i).ok()?)?;
                if graph.id_at(gix::commitgraph::Position(pos)).as_bytes() != id {
                    return None;
                }
            }
            let base = u32::try_from(dates.overflow.len()).ok()?;
            for word in chunks.offsets.chunks_exact(4) {
                let offset = u32::from_be_bytes(word.try_into().ok()?);
                if offset & OVERFLOW == 0 {
                    dates.offsets.push(offset);
                } else {
                    let at = (offset & !OVERFLOW).checked_add(base)?;
                    if at & OVERFLOW != 0 {
                        return None;
                    }
                    dates.offsets.push(at | OVERFLOW);
                }
            }
            for word in chunks.overflow.chunks_exact(8) {
                dates
                    .overflow
                    .push(u64::from_be_bytes(word.try_into().ok()?));
            }
        }
        if dates.offsets.len() != total {
            return None;
        }
        // Every overflowing offset must name an entry.
        let held = dates.overflow.len();
        let named = |&offset: &u32| {
            offset & OVERFLOW == 0 || usize::try_from(offset & !OVERFLOW).is_ok_and(|at| at < held)
        };
        dates.offsets.iter().all(named).then_some(dates)
    }

    /// The corrected date of the commit at `position`, whose committer date
    /// (as the graph holds it) is `date`.
    pub(super) fn at(&self, position: u32, date: u64) -> u64 {
        let offset = self.offsets[position as usize];
        let offset = if offset & OVERFLOW == 0 {
            u64::from(offset)
        } else {
            self.overflow[(offset & !OVERFLOW) as usize]
        };
        date.saturating_add(offset)
    }
}

/// The files of the commit-graph under `info`, base first, as gix finds
/// them: the one file, else each file the chain names.
fn graph_files(info: &Path) -> Option<Vec<(PathBuf, PathBuf)>> {
    let single = Path::new("commit-graph");
    match crate::fsutil::open_within(info, single, crate::fsutil::Kind::COMMIT_GRAPH) {
        Ok(Some(_)) => return Some(vec![(info.to_path_buf(), single.to_path_buf())]),
        Ok(None) => {}
        Err(_) => return None,
    }
    let dir = info.join("commit-graphs");
    let chain = crate::fsutil::read_within(
        &dir,
        Path::new("commit-graph-chain"),
        crate::fsutil::Kind::GIT_STATE,
    )
    .ok()??;
    let chain = std::str::from_utf8(&chain).ok()?;
    let files: Vec<_> = chain
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .map(|hash| {
            let valid = hash.bytes().all(|b| b.is_ascii_hexdigit());
            valid.then(|| (dir.clone(), PathBuf::from(format!("graph-{hash}.graph"))))
        })
        .collect::<Option<_>>()?;
    (!files.is_empty()).then_some(files)
}

/// The chunks of one commit-graph file gate reads.
struct Chunks {
    ids: Vec<u8>,
    offsets: Vec<u8>,
    overflow: Vec<u8>,
}

/// Read the commit list, the corrected-date offsets and their overflow
/// from the file `name` in `dir`; `None` when it has no offsets, is not a
/// commit-graph of this hash, or its chunk table does not fit it.
fn read_chunks(dir: &Path, name: &Path, hash_len: usize) -> Option<Chunks> {
    let (mut file, meta) =
        crate::fsutil::open_within(dir, name, crate::fsutil::Kind::COMMIT_GRAPH).ok()??;
    let size = meta.len();
    let mut header = [0u8; 8];
    file.read_exact(&mut header).ok()?;
    let hash_version = match hash_len {
        20 => 1,
        32 => 2,
        _ => return None,
    };
    if &header[..4] != b"CGPH" || header[4] != 1 || header[5] != hash_version {
        return None;
    }
    let count = usize::from(header[6]);
    let mut table = vec![0u8; (count + 1) * 12];
    file.read_exact(&mut table).ok()?;
    let entries: Vec<([u8; 4], u64)> = table
        .chunks_exact(12)
        .map(|e| {
            let id = e[..4].try_into().ok()?;
            Some((id, u64::from_be_bytes(e[4..].try_into().ok()?)))
        })
        .collect::<Option<_>>()?;
    // A chunk runs to where the next one starts.
    let chunk = |file: &mut std::fs::File, id: &[u8; 4]| -> Option<Option<Vec<u8>>> {
        let Some(at) = entries[..count].iter().position(|(name, _)| name == id) else {
            return Some(None);
        };
        let (start, end) = (entries[at].1, entries[at + 1].1);
        if start > end || end > size {
            return None;
        }
        let mut bytes = vec![0u8; usize::try_from(end - start).ok()?];
        file.seek(SeekFrom::Start(start)).ok()?;
        file.read_exact(&mut bytes).ok()?;
        Some(Some(bytes))
    };
    let offsets = chunk(&mut file, b"GDA2")??;
    let ids = chunk(&mut file, b"OIDL")??;
    let overflow = chunk(&mut file, b"GDO2")?.unwrap_or_default();
    Some(Chunks {
        ids,
        offsets,
        overflow,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_offset_adds_to_the_date_and_an_overflowing_one_is_looked_up() {
        let dates = CorrectedDates {
            offsets: vec![0, 7, OVERFLOW | 1],
            overflow: vec![5, 1 << 40],
        };
        assert_eq!(dates.at(0, 1_000), 1_000);
        assert_eq!(dates.at(1, 1_000), 1_007);
        assert_eq!(dates.at(2, 1_000), 1_000 + (1 << 40));
    }
}
