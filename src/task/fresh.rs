//! Task ids that never collide (decision 0024).
//!
//! A task id names a file every branch may add, `.gate/tasks/<ID>.md`, and
//! the local state gate keeps for that task. Two people who start work on
//! the same issue must get two ids, whether or not their clones have seen
//! each other's branches, or merging the branches conflicts on the task
//! file and one task's local state is read as the other's.
//!
//! So an id is **in use** when anything this clone can see holds it — the
//! work tree's task file, a task file in the tree of any local branch or
//! remote-tracking branch, or this clone's local state for it — and the
//! default id carries a fresh part no other start can predict:
//! `T-<name>-<5 characters>`, the characters drawn from the digits and
//! lowercase letters of Crockford's base 32 (no `i`, `l`, `o`, `u`).

use std::collections::{BTreeMap, BTreeSet};
use std::hash::{BuildHasher, Hasher};
use std::io::Read;
use std::path::Path;

use crate::git::{Oid, Repo};
use crate::path::RepoPath;

use super::{TASKS_DIR, task_file};

/// The characters of the fresh part: Crockford's base 32, lowercase.
const ALPHABET: &[u8; 32] = b"0123456789abcdefghjkmnpqrstvwxyz";

/// How many characters the fresh part has (25 bits).
pub const FRESH_LEN: usize = 5;

/// How many fresh ids are drawn before giving up (each is in use with a
/// chance of about one in 33 million per id already seen).
const DRAWS: u32 = 64;

/// The task ids committed in the trees of this clone's branch tips, each
/// with the first ref (by name) whose tree holds it.
#[derive(Debug, Default)]
pub struct InUse {
    committed: BTreeMap<String, String>,
}

impl InUse {
    /// The task files of every local branch (`refs/heads/*`) and
    /// remote-tracking branch (`refs/remotes/*/*`). A ref or tree that
    /// cannot be read is an error: an id that might be taken is not free.
    pub fn gather(repo: &Repo) -> Result<InUse, String> {
        let tips = repo.branch_tips().map_err(|e| e.to_string())?;
        let dir = RepoPath::from(TASKS_DIR);
        let mut seen_trees: BTreeSet<Oid> = BTreeSet::new();
        let mut committed: BTreeMap<String, String> = BTreeMap::new();
        for (name, tip) in tips {
            let tree = repo
                .tree_id_at(tip, &dir)
                .map_err(|e| format!("reading {TASKS_DIR} at {name}: {e}"))?;
            let Some(tree) = tree else { continue };
            if !seen_trees.insert(tree) {
                // The same task files as a ref already listed: the first
                // name (refs sort by name) is the one said.
                continue;
            }
            let entries = repo
                .list_dir(tip, &dir)
                .map_err(|e| format!("listing {TASKS_DIR} at {name}: {e}"))?;
            for (path, _, _) in entries {
                let Some(id) = path
                    .to_str()
                    .and_then(|p| p.rsplit('/').next())
                    .and_then(|n| n.strip_suffix(".md"))
                else {
                    continue;
                };
                committed
                    .entry(id.to_string())
                    .or_insert_with(|| name.clone());
            }
        }
        Ok(InUse { committed })
    }

    /// Where `id` is in use, said for a person; `None` when it is free. The
    /// work tree at `root` and the local state under `common_dir` are asked
    /// now; the branch tips as [`gather`](Self::gather) listed them. A local
    /// state entry that cannot be looked at is an error.
    pub fn place(
        &self,
        root: &Path,
        common_dir: &Path,
        id: &str,
    ) -> Result<Option<String>, String> {
        let file = task_file(id);
        if exists(&root.join(&file))? {
            return Ok(Some(format!("{} exists in the work tree", file.display())));
        }
        if let Some(name) = self.committed.get(id) {
            return Ok(Some(format!("{} is committed at {name}", file.display())));
        }
        for state in local_state(common_dir, id) {
            if exists(&state)? {
                return Ok(Some(format!(
                    "this clone keeps local state for task {id} ({})",
                    state.display()
                )));
            }
        }
        Ok(None)
    }

    /// A fresh id `<base>-<5 characters>` that is in use nowhere
    /// [`place`](Self::place) looks. `base` is cut so the id stays within
    /// the 64 characters a task id may have. An error when the places
    /// cannot be looked at, or (beyond any likelihood) every draw is taken.
    pub fn fresh(
        &self,
        root: &Path,
        common_dir: &Path,
        base: &str,
        seed: &[u8],
    ) -> Result<String, String> {
        let base: String = base.chars().take(64 - 1 - FRESH_LEN).collect();
        let entropy = entropy(seed);
        for draw in 0..DRAWS {
            let id = format!("{base}-{}", fresh_part(&entropy, draw));
            if self.place(root, common_dir, &id)?.is_none() {
                return Ok(id);
            }
        }
        Err(format!(
            "no free task id of the form {base}-… in {DRAWS} draws"
        ))
    }
}

pub use super::local::local_state;

/// Whether anything (a file, a directory, a link) is at `path`. A parent
/// that is not a directory holds nothing; any other failure to look is an
/// error, never "absent".
fn exists(path: &Path) -> Result<bool, String> {
    match path.symlink_metadata() {
        Ok(_) => Ok(true),
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            Ok(false)
        }
        Err(e) => Err(format!("cannot look at {}: {e}", path.display())),
    }
}

/// What one start draws its fresh parts from: `seed` (the caller's: who
/// starts, where) with the time in nanoseconds, the process id, a
/// per-process random hasher key and, when readable, 16 bytes of
/// `/dev/urandom` — so two starts differ even on one machine in one
/// nanosecond, and on machines that share a clock and a process id.
///
/// In a debug build, `GATE_TEST_ID_ENTROPY` replaces all of it: the tests'
/// way to make two starts draw the same parts (tests/integration/task_ids.rs).
/// Release builds have none.
fn entropy(seed: &[u8]) -> Vec<u8> {
    #[cfg(debug_assertions)]
    if let Some(fixed) = std::env::var_os("GATE_TEST_ID_ENTROPY") {
        return fixed.as_encoded_bytes().to_vec();
    }
    let mut bytes = b"gate task id\0".to_vec();
    bytes.extend_from_slice(seed);
    bytes.push(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    bytes.extend_from_slice(&nanos.to_le_bytes());
    bytes.extend_from_slice(&std::process::id().to_le_bytes());
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(nanos);
    bytes.extend_from_slice(&hasher.finish().to_le_bytes());
    let mut random = [0u8; 16];
    if let Ok(mut f) = std::fs::File::open("/dev/urandom")
        && f.read_exact(&mut random).is_ok()
    {
        bytes.extend_from_slice(&random);
    }
    bytes
}

/// The fresh part of draw `draw`: the first 25 bits of the SHA-256 of the
/// entropy and the draw, in [`ALPHABET`].
fn fresh_part(entropy: &[u8], draw: u32) -> String {
    let mut input = entropy.to_vec();
    input.extend_from_slice(&draw.to_le_bytes());
    let digest = crate::digest::sha256_hex(&input);
    let bits = u64::from_str_radix(&digest[..16], 16).expect("sha256_hex is hex");
    (0..FRESH_LEN)
        .map(|i| ALPHABET[((bits >> (59 - 5 * i)) & 31) as usize] as char)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fresh_parts_use_the_alphabet_and_differ_by_draw() {
        let e = entropy(b"seed");
        let a = fresh_part(&e, 0);
        let b = fresh_part(&e, 1);
        assert_eq!(a.len(), FRESH_LEN);
        assert!(a.bytes().all(|c| ALPHABET.contains(&c)), "{a}");
        assert_ne!(a, b);
        assert_eq!(a, fresh_part(&e, 0), "one draw of one entropy is one part");
    }

    #[test]
    fn two_starts_draw_from_different_entropy() {
        // Same seed, same process, back to back: the random sources (and
        // the clock) must still tell them apart.
        let (a, b) = (entropy(b"same seed"), entropy(b"same seed"));
        assert_ne!(a, b);
        assert_ne!(
            fresh_part(&a, 0) + &fresh_part(&a, 1),
            fresh_part(&b, 0) + &fresh_part(&b, 1)
        );
    }

    #[test]
    fn a_fresh_id_is_a_valid_task_id_within_its_length() {
        let dir = tempfile::tempdir().unwrap();
        let in_use = InUse::default();
        let long = "T-".to_string() + &"x".repeat(80);
        for base in ["T-102", "T-I-export", long.as_str()] {
            let id = in_use.fresh(dir.path(), dir.path(), base, b"seed").unwrap();
            crate::ids::task_id(&id).unwrap();
            assert!(id.len() <= 64, "{id}");
            assert_eq!(id.len(), base.len().min(58) + 1 + FRESH_LEN, "{id}");
        }
    }

    #[test]
    fn local_state_makes_an_id_in_use() {
        let dir = tempfile::tempdir().unwrap();
        let (root, common) = (dir.path().join("wt"), dir.path().join("git"));
        let in_use = InUse::default();
        assert_eq!(in_use.place(&root, &common, "T-1").unwrap(), None);
        let started = crate::task::local::started_path(&common, "T-1");
        std::fs::create_dir_all(started.parent().unwrap()).unwrap();
        std::fs::write(&started, "refs/heads/main\n").unwrap();
        let place = in_use.place(&root, &common, "T-1").unwrap().unwrap();
        assert!(place.contains("local state"), "{place}");
        // `started` a file where a directory belongs holds no id.
        let started_dir = crate::task::local::started_dir(&common);
        std::fs::remove_dir_all(&started_dir).unwrap();
        std::fs::write(&started_dir, "not a directory\n").unwrap();
        assert_eq!(in_use.place(&root, &common, "T-1").unwrap(), None);
    }
}
