//! The thinking budget: a node count and the caller's deadline, checked every few hundred nodes.

use crate::Deadline;

/// Nodes between two looks at the deadline: cheap enough to be negligible, frequent enough that
/// a search stops within a millisecond or so of the deadline.
const CHECK_EVERY: u64 = 256;

/// Counts the work done (a node is one step applied or one position evaluated) and says when to
/// stop. Once stopped it stays stopped, so every loop above sees the same answer.
pub(crate) struct Budget<'a> {
    deadline: &'a mut dyn Deadline,
    max_nodes: u64,
    nodes: u64,
    next_check: u64,
    stopped: bool,
}

impl<'a> Budget<'a> {
    /// A budget of `max_nodes` nodes; the deadline is polled once right away, so an expired
    /// deadline stops the search before any real work.
    pub(crate) fn new(deadline: &'a mut dyn Deadline, max_nodes: u64) -> Budget<'a> {
        let stopped = deadline.expired();
        Budget {
            deadline,
            max_nodes,
            nodes: 0,
            next_check: CHECK_EVERY,
            stopped,
        }
    }

    /// Counts `n` nodes; true when the search must stop.
    #[inline]
    pub(crate) fn spend(&mut self, n: u64) -> bool {
        self.nodes += n;
        if self.stopped {
            return true;
        }
        if self.nodes >= self.max_nodes {
            self.stopped = true;
        } else if self.nodes >= self.next_check {
            self.next_check = self.nodes + CHECK_EVERY;
            self.stopped = self.deadline.expired();
        }
        self.stopped
    }

    /// Whether the search must stop.
    #[inline]
    pub(crate) const fn stopped(&self) -> bool {
        self.stopped
    }
}
