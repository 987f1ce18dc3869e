//! Accepting connections, before any request is read: at most `serve_max_connections`
//! open at once (lowered to fit the process's open-file limit) and
//! `serve_max_connections_per_client` from one address; a connection beyond either gets
//! a 503 and is closed at once. HTTP/1.1 through hyper, with a header read timeout
//! (`serve_header_timeout_secs`) that also bounds the idle time between requests on a
//! kept-alive connection, so connections holding partial headers or idling cannot pile
//! up. On shutdown it stops accepting, closes idle connections and lets the others
//! finish their request for at most the grace time.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{watch, Notify};

use crate::config::Config;

/// Descriptors kept free for the index, the models and the workers' databases.
const RESERVED_FDS: u64 = 64;

/// Descriptors each worker may hold (SQLite database, journal, shared memory, …).
const FDS_PER_WORKER: u64 = 8;

/// The answer to a connection beyond the limits.
const REFUSAL: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/problem+json\r\nretry-after: 1\r\nconnection: close\r\ncontent-length: 143\r\n\r\n{\"type\":\"urn:attest:problem:too-many-connections\",\"title\":\"too many connections\",\"status\":503,\"detail\":\"the server is at its connection limit\"}";

/// The connection limits in force.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Time to send a request's headers, and longest idle time between requests.
    pub header_timeout: Duration,
    /// Connections open at once.
    pub max_connections: usize,
    /// Connections open at once from one address.
    pub max_per_client: usize,
}

impl Limits {
    /// The configured limits, `max_connections` lowered so that the open connections,
    /// the workers and a reserve fit the process's open-file limit.
    pub fn from_config(cfg: &Config) -> Limits {
        let workers = (cfg.serve_workers + cfg.serve_review_workers) as u64;
        let reserve = RESERVED_FDS + FDS_PER_WORKER * workers;
        let mut max = cfg.serve_max_connections;
        if let Some(files) = rustix::process::getrlimit(rustix::process::Resource::Nofile).current {
            let fit = files.saturating_sub(reserve).max(1) as usize;
            if fit < max {
                tracing::warn!(target: "attest::server", "serve_max_connections {max} lowered to {fit} to fit the open-file limit of {files}");
                max = fit;
            }
        }
        Limits {
            header_timeout: Duration::from_secs(cfg.serve_header_timeout_secs),
            max_connections: max,
            max_per_client: cfg.serve_max_connections_per_client.min(max),
        }
    }
}

/// The open connections, in total and per address.
struct Open {
    limits: Limits,
    counts: Mutex<(usize, HashMap<IpAddr, usize>)>,
    closed: Notify,
}

/// One open connection; dropping it frees its place.
struct Slot {
    open: Arc<Open>,
    ip: IpAddr,
}

impl Open {
    /// A place for a connection from `ip`, when the limits allow one.
    fn take(self: &Arc<Self>, ip: IpAddr) -> Option<Slot> {
        let mut g = self.counts.lock().unwrap_or_else(|p| p.into_inner());
        let (total, per) = &mut *g;
        let mine = per.entry(ip).or_insert(0);
        if *total >= self.limits.max_connections || *mine >= self.limits.max_per_client {
            if *mine == 0 {
                per.remove(&ip);
            }
            return None;
        }
        *mine += 1;
        *total += 1;
        Some(Slot {
            open: self.clone(),
            ip,
        })
    }

    fn total(&self) -> usize {
        self.counts.lock().unwrap_or_else(|p| p.into_inner()).0
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut g = self.open.counts.lock().unwrap_or_else(|p| p.into_inner());
        let (total, per) = &mut *g;
        *total -= 1;
        if let Some(n) = per.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                per.remove(&self.ip);
            }
        }
        drop(g);
        self.open.closed.notify_waiters();
    }
}

/// Serve `router` on `listener` within `limits` until `stop` resolves; then wait for the
/// open connections for at most `grace`.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: Limits,
    stop: impl std::future::Future<Output = ()>,
    grace: Duration,
) {
    let open = Arc::new(Open {
        limits,
        counts: Mutex::new((0, HashMap::new())),
        closed: Notify::new(),
    });
    let (closing, closing_rx) = watch::channel(false);
    tokio::pin!(stop);
    loop {
        let (stream, peer) = tokio::select! {
            () = &mut stop => break,
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    accept_failed(e).await;
                    continue;
                }
            },
        };
        match open.take(peer.ip()) {
            Some(slot) => {
                let conn = connection(stream, router.clone(), limits, closing_rx.clone(), slot);
                tokio::spawn(conn);
            }
            None => refuse(stream),
        }
    }
    drop(listener);
    let _ = closing.send(true);
    let drained = async {
        loop {
            let closed = open.closed.notified();
            if open.total() == 0 {
                return;
            }
            closed.await;
        }
    };
    if tokio::time::timeout(grace, drained).await.is_err() {
        tracing::warn!(target: "attest::server", "requests still open {} s after the signal: exiting", grace.as_secs());
    }
}

/// Serve one connection, holding `slot` until it closes; shut it down gracefully (the
/// request in flight finishes) when `closing` turns true.
async fn connection(
    stream: TcpStream,
    router: Router,
    limits: Limits,
    mut closing: watch::Receiver<bool>,
    slot: Slot,
) {
    let _slot = slot;
    let _ = stream.set_nodelay(true);
    let service = TowerToHyperService::new(router);
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout);
    let conn = builder.serve_connection(TokioIo::new(stream), service);
    tokio::pin!(conn);
    let mut shutting = false;
    loop {
        tokio::select! {
            r = conn.as_mut() => {
                if let Err(e) = r {
                    tracing::debug!(target: "attest::server", "connection closed: {e}");
                }
                return;
            }
            changed = closing.changed(), if !shutting => {
                shutting = true;
                if changed.is_ok() {
                    conn.as_mut().graceful_shutdown();
                }
            }
        }
    }
}

/// Tell a connection beyond the limits so, if its socket takes the bytes at once, and
/// close it.
fn refuse(stream: TcpStream) {
    tracing::debug!(target: "attest::server", "connection refused: at the connection limit");
    let _ = stream.try_write(REFUSAL);
}

/// After a failed accept: nothing for a connection's own error; otherwise (out of
/// descriptors, typically) wait a little before accepting again.
async fn accept_failed(e: std::io::Error) {
    use std::io::ErrorKind::{ConnectionAborted, ConnectionRefused, ConnectionReset};
    if matches!(
        e.kind(),
        ConnectionAborted | ConnectionRefused | ConnectionReset
    ) {
        return;
    }
    tracing::error!(target: "attest::server", "accept failed: {e}");
    tokio::time::sleep(Duration::from_millis(100)).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_are_bounded_in_total_and_per_address_and_given_back() {
        let open = Arc::new(Open {
            limits: Limits {
                header_timeout: Duration::from_secs(1),
                max_connections: 3,
                max_per_client: 2,
            },
            counts: Mutex::new((0, HashMap::new())),
            closed: Notify::new(),
        });
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        let a1 = open.take(a).unwrap();
        let _a2 = open.take(a).unwrap();
        assert!(open.take(a).is_none(), "per address");
        let _b1 = open.take(b).unwrap();
        assert!(open.take(b).is_none(), "in total");
        drop(a1);
        let _b2 = open.take(b).unwrap();
        assert_eq!(open.total(), 3);
    }

    #[test]
    fn the_refusal_declares_its_body_length() {
        let text = std::str::from_utf8(REFUSAL).unwrap();
        let (_, body) = text.split_once("\r\n\r\n").unwrap();
        assert!(text.contains(&format!("content-length: {}\r\n", body.len())));
        serde_json::from_str::<serde_json::Value>(body).unwrap();
    }
}
