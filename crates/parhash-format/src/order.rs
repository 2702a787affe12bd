//! A plan's records in input order: some are hashed by an engine that hands its results back
//! in the order it was given the files, the others are passed through as they are (a kept
//! line of `--resume` or `--update`). [`InputOrder`] holds the plan's steps until their turn:
//! each result of the engine follows the steps passed through before its file. The CLI
//! (`sum -o` planned hashing) and Python (`parhash.lists`) both write their lists through it.

use std::collections::VecDeque;

/// One step of a plan waiting for its turn.
enum Waiting<H, K> {
    /// A file given to the engine; its result is the engine's next one.
    Hashed(H),
    /// A record passed through.
    Kept(K),
}

/// The steps of a plan waiting for the engine's results (see the [module docs](self)).
pub struct InputOrder<H, K> {
    waiting: VecDeque<Waiting<H, K>>,
    limit: usize,
}

impl<H, K> Default for InputOrder<H, K> {
    fn default() -> Self {
        Self::with_limit(Self::MAX_WAITING)
    }
}

impl<H, K> InputOrder<H, K> {
    /// The most steps that wait at once: a caller gives the engine no more files once this
    /// many wait, lets it finish, and goes on, so that a long run of passed-through records
    /// costs no more memory than that.
    pub const MAX_WAITING: usize = 1 << 13;

    /// An empty plan.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty plan that is full at `limit` waiting steps instead of [`Self::MAX_WAITING`]
    /// (at least one): tests drive the engine's restarts with a small one.
    pub fn with_limit(limit: usize) -> Self {
        InputOrder {
            waiting: VecDeque::new(),
            limit: limit.max(1),
        }
    }

    /// A file given to the engine, with what goes with its result.
    pub fn hashed(&mut self, payload: H) {
        self.waiting.push_back(Waiting::Hashed(payload));
    }

    /// A record passed through in its place.
    pub fn kept(&mut self, record: K) {
        self.waiting.push_back(Waiting::Kept(record));
    }

    /// Whether the limit's steps ([`InputOrder::MAX_WAITING`] unless [`Self::with_limit`])
    /// wait.
    pub fn is_full(&self) -> bool {
        self.waiting.len() >= self.limit
    }

    /// The steps passed through at the head, up to the next file given to the engine (or all
    /// of them once the engine has handed back every result).
    pub fn kept_first(&mut self) -> impl Iterator<Item = K> + '_ {
        std::iter::from_fn(|| match self.waiting.front() {
            Some(Waiting::Kept(_)) => match self.waiting.pop_front() {
                Some(Waiting::Kept(record)) => Some(record),
                _ => unreachable!("the front is a kept record"),
            },
            _ => None,
        })
    }

    /// The payload of the file the engine's next result is for, once the steps passed
    /// through before it are taken ([`InputOrder::kept_first`]).
    ///
    /// # Panics
    /// If no file waits at the head: more results than files, or kept records not taken.
    pub fn next_hashed(&mut self) -> H {
        match self.waiting.pop_front() {
            Some(Waiting::Hashed(payload)) => payload,
            _ => panic!("every result has its file in the plan, after the kept records"),
        }
    }

    /// Whether nothing waits.
    pub fn is_empty(&self) -> bool {
        self.waiting.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_out_between_the_kept_records_in_plan_order() {
        let mut order = InputOrder::new();
        order.kept("k0");
        order.hashed("h1");
        order.kept("k2");
        order.kept("k3");
        order.hashed("h4");
        order.kept("k5");
        let mut out = Vec::new();
        for result in ["r1", "r4"] {
            out.extend(order.kept_first());
            out.push(order.next_hashed());
            out.push(result);
        }
        out.extend(order.kept_first());
        assert!(order.is_empty());
        assert_eq!(out, ["k0", "h1", "r1", "k2", "k3", "h4", "r4", "k5"]);
    }

    #[test]
    fn it_is_full_at_max_waiting() {
        let mut order = InputOrder::<(), usize>::new();
        for i in 0..InputOrder::<(), usize>::MAX_WAITING {
            assert!(!order.is_full());
            order.kept(i);
        }
        assert!(order.is_full());
    }
}
