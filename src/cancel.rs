//! Cooperative cancellation of long work (a review run by the server): a flag the caller
//! raises when its client went away or its time limit passed, and a deadline. The work
//! checks it between steps and stops with [`Error::Cancelled`], freeing its worker.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::error::Error;

/// A cancellation flag with an optional deadline; clones share the flag.
#[derive(Debug, Clone, Default)]
pub struct Cancel {
    flag: Arc<AtomicBool>,
    deadline: Option<Instant>,
}

impl Cancel {
    /// Never cancelled unless [`Cancel::cancel`] is called.
    pub fn never() -> Self {
        Self::default()
    }

    /// Cancelled once `limit` has passed from now (or when cancelled before).
    pub fn within(limit: Duration) -> Self {
        Cancel {
            flag: Arc::default(),
            deadline: Instant::now().checked_add(limit),
        }
    }

    /// Cancel the work (and every clone's).
    pub fn cancel(&self) {
        self.flag.store(true, Ordering::Relaxed);
    }

    /// Whether the work should stop.
    pub fn is_cancelled(&self) -> bool {
        self.flag.load(Ordering::Relaxed) || self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// The time left before the deadline (`None`: no deadline; zero once it passed).
    pub fn remaining(&self) -> Option<Duration> {
        self.deadline
            .map(|d| d.saturating_duration_since(Instant::now()))
    }

    /// `Err(Error::Cancelled)` when the work should stop.
    pub fn check(&self) -> Result<(), Error> {
        if self.is_cancelled() {
            Err(Error::Cancelled)
        } else {
            Ok(())
        }
    }

    /// A guard that cancels the work when it is dropped (the request it serves ended:
    /// answered, timed out, or its client went away).
    pub fn on_drop(&self) -> CancelOnDrop {
        CancelOnDrop(self.clone())
    }
}

/// Cancels its [`Cancel`] when dropped.
#[derive(Debug)]
pub struct CancelOnDrop(Cancel);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flag_a_deadline_or_a_dropped_guard_cancels() {
        let c = Cancel::never();
        assert!(c.check().is_ok());
        drop(c.on_drop());
        assert!(matches!(c.check(), Err(Error::Cancelled)));
        assert!(Cancel::within(Duration::ZERO).is_cancelled());
        assert!(!Cancel::within(Duration::from_secs(60)).is_cancelled());
    }
}
