//! The evidence viewer: one page, its script and its style, embedded in the binary (no
//! CDN, no network, no build step). The page talks to the API of the server it came
//! from; a strict Content-Security-Policy keeps it to that server.

use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};

const PAGE: &str = include_str!("viewer/index.html");
const SCRIPT: &str = include_str!("viewer/app.js");
const STYLE: &str = include_str!("viewer/app.css");

/// The policy every viewer file is served with: only this server's own scripts, styles
/// and API.
const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

fn asset(body: &'static str, content_type: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, HeaderValue::from_static(content_type)),
            (
                header::CONTENT_SECURITY_POLICY,
                HeaderValue::from_static(CSP),
            ),
            (
                header::X_CONTENT_TYPE_OPTIONS,
                HeaderValue::from_static("nosniff"),
            ),
            (
                header::REFERRER_POLICY,
                HeaderValue::from_static("no-referrer"),
            ),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
        ],
        body,
    )
        .into_response()
}

/// `GET /`: the page.
pub async fn page() -> Response {
    asset(PAGE, "text/html; charset=utf-8")
}

/// `GET /viewer/app.js`.
pub async fn script() -> Response {
    asset(SCRIPT, "text/javascript; charset=utf-8")
}

/// `GET /viewer/app.css`.
pub async fn style() -> Response {
    asset(STYLE, "text/css; charset=utf-8")
}
