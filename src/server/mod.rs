//! `attest serve`: the [`Service`] over HTTP (axum on tokio), with the evidence viewer
//! page, the OpenAPI document and the Prometheus metrics.
//!
//! Safe by default: it binds a loopback address unless remote access is allowed, which
//! then needs a bearer token; `Host` and `Origin` must name the bound address (DNS
//! rebinding); bodies, questions and texts are bounded; requests beyond the concurrency
//! limit get 429 with `Retry-After`; each request has a time limit; CORS stays closed
//! unless origins are configured; requests name documents by id only, never by path.
//! Connections are bounded before any request is read ([`listen`]): in number, in total
//! and per address, and in the time to send headers or sit idle.
//! SIGINT and SIGTERM stop it gracefully: it stops accepting, finishes what it holds
//! (for at most 30 s, or the request time limit when shorter), then exits.

pub mod access;
pub mod api;
pub mod listen;
pub mod viewer;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};
use axum::Router;
use tokio::sync::Semaphore;

use crate::service::Service;

/// Errors starting the server.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// The address is not loopback and remote access was not allowed.
    #[error("{addr} is not a loopback address: pass --allow-remote (with a token in ATTEST_TOKEN or serve_token) to serve other hosts")]
    RemoteNotAllowed {
        /// The address asked for.
        addr: SocketAddr,
    },
    /// Remote access was allowed without a token.
    #[error("--allow-remote needs a bearer token: set ATTEST_TOKEN or serve_token in attest.toml")]
    NoToken,
    /// The CORS origins are not valid header values.
    #[error("serve_cors_origins: {0:?} is not a valid origin")]
    BadOrigin(String),
    /// Binding or serving failed.
    #[error("{addr}: {source}")]
    Io {
        /// The address.
        addr: SocketAddr,
        /// The OS error.
        source: std::io::Error,
    },
}

/// How the server listens.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// Address to bind (port 0: any free port).
    pub addr: SocketAddr,
    /// Allow a non-loopback address (a token is then required).
    pub allow_remote: bool,
    /// More host names clients may use in `Host` (e.g. the machine's name when remote).
    pub hosts: Vec<String>,
}

/// What every handler shares.
pub struct App {
    /// The engine.
    pub service: Arc<Service>,
    /// Requests held at once.
    pub permits: Arc<Semaphore>,
    /// Time limit of a request.
    pub timeout: Duration,
    /// Access rules.
    pub access: access::Rules,
    /// Largest body read, in bytes.
    pub max_body: usize,
}

/// Bind `opts.addr`, call `ready` with the bound address, and serve until SIGINT or
/// SIGTERM.
pub async fn serve(
    service: Arc<Service>,
    opts: ServeOptions,
    ready: impl FnOnce(SocketAddr),
) -> Result<(), ServerError> {
    let cfg = service.config().clone();
    let token = cfg.serve_token.expose().map(str::to_string);
    if !opts.addr.ip().is_loopback() {
        if !opts.allow_remote {
            return Err(ServerError::RemoteNotAllowed { addr: opts.addr });
        }
        if token.is_none() {
            return Err(ServerError::NoToken);
        }
    }
    let listener = tokio::net::TcpListener::bind(opts.addr)
        .await
        .map_err(|source| ServerError::Io {
            addr: opts.addr,
            source,
        })?;
    let bound = listener.local_addr().map_err(|source| ServerError::Io {
        addr: opts.addr,
        source,
    })?;
    let rules = access::Rules::new(bound, &opts.hosts, token, &cfg.serve_cors_origins)?;
    let app = Arc::new(App {
        permits: Arc::new(Semaphore::new(cfg.serve_concurrency)),
        timeout: Duration::from_secs(cfg.serve_timeout_secs),
        access: rules,
        max_body: cfg.serve_max_body_bytes as usize,
        service,
    });
    let router = router(app.clone());
    let limits = listen::Limits::from_config(&cfg);
    ready(bound);
    let grace = app.timeout.min(SHUTDOWN_GRACE);
    listen::serve(listener, router, limits, shutdown_signal(), grace).await;
    Ok(())
}

/// Longest wait for open requests after SIGINT/SIGTERM.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(30);

/// The routes, with the access rules and the body limit.
pub fn router(app: Arc<App>) -> Router {
    let max_body = app.max_body;
    let routes = Router::new()
        .route("/v1/ask", post(api::ask))
        .route("/v1/ask/batch", post(api::ask_batch))
        .route("/v1/search", post(api::search))
        .route("/v1/review", post(api::review))
        .route("/v1/validate", post(api::validate))
        .route("/v1/sources", post(api::sources))
        .route("/v1/requirements", post(api::requirements))
        .route("/v1/status", get(api::status))
        .route("/v1/documents/{doc_id}", get(api::document))
        .route("/v1/evidence/{evidence_key}", get(api::evidence))
        .route("/metrics", get(api::metrics))
        .route("/healthz", get(api::healthz))
        .route("/openapi.json", get(api::openapi))
        .route("/", get(viewer::page))
        .route("/viewer/app.js", get(viewer::script))
        .route("/viewer/app.css", get(viewer::style))
        .fallback(api::not_found)
        .method_not_allowed_fallback(api::method_not_allowed)
        .layer(DefaultBodyLimit::max(max_body));
    let cors = app.access.cors();
    let routes = routes
        .layer(axum::middleware::from_fn_with_state(
            app.clone(),
            access::check,
        ))
        .with_state(app);
    match cors {
        Some(c) => routes.layer(c),
        None => routes,
    }
}

/// Resolves on SIGINT (Ctrl-C) or SIGTERM.
async fn shutdown_signal() {
    let interrupt = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => {},
        () = terminate => {},
    }
    tracing::info!(target: "attest::server", "shutting down: finishing the requests in flight");
}
