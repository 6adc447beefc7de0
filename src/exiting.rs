//! What a one-shot run leaves to the kernel.
//!
//! The binary answers one verb and exits: what it holds then need not be
//! freed piece by piece, since the kernel takes the whole address space
//! back at once (git leaves its own this way, `UNLEAK`). A check of
//! moby's last thousand commits spent 0.4-0.9 ms freeing its repository's
//! caches and its report's findings after the report was printed
//! (decision 0043). `gate mcp`, which answers request after request in one
//! process, frees as it goes: only `main` says the process exits, and not
//! for `mcp`.
//!
//! Only plain data is left this way: a value whose `Drop` does anything
//! besides freeing memory (joins a thread, removes a lock file) must do
//! that first, as [`crate::git::Repo::leave`] hands its cache writes over.

use std::sync::atomic::{AtomicBool, Ordering};

static EXITS_AFTER_ANSWER: AtomicBool = AtomicBool::new(false);

/// Say that this process exits once it has answered: the binary's `main`,
/// for every verb but `gate mcp`.
pub fn exits_after_answer() {
    EXITS_AFTER_ANSWER.store(true, Ordering::Relaxed);
}

/// Let `value` go: left to the kernel in a process that exits after its
/// answer, freed here otherwise. `value` must be plain data (see the
/// module's documentation).
pub fn let_go<T>(value: T) {
    let_go_as(value, EXITS_AFTER_ANSWER.load(Ordering::Relaxed));
}

fn let_go_as<T>(value: T, exiting: bool) {
    if exiting {
        std::mem::forget(value);
    } else {
        drop(value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    struct Counted<'a>(&'a AtomicUsize);

    impl Drop for Counted<'_> {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }

    #[test]
    fn a_value_let_go_is_freed_unless_the_process_exits_after_its_answer() {
        let dropped = AtomicUsize::new(0);
        let_go_as(Counted(&dropped), false);
        assert_eq!(dropped.load(Ordering::Relaxed), 1, "freed here");
        let_go_as(Counted(&dropped), true);
        assert_eq!(dropped.load(Ordering::Relaxed), 1, "left to the kernel");
        // No test sets the process's flag: a run of the tests frees.
        let_go(Counted(&dropped));
        assert_eq!(dropped.load(Ordering::Relaxed), 2);
    }
}
