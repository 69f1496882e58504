//! The HTTP side of `profilegen serve`: a local preview server for the output folder, with
//! live reload.
//!
//! The server runs on its own thread with its own small tokio runtime, so the rest of
//! profilegen (the builder, the file watcher) stays synchronous. It reads every file fresh
//! from disk on every request, because the builder replaces files underneath it (by rename,
//! so a request sees either the old or the new file, whole). Every HTML response gets a
//! small script that listens for server-sent events and reloads the page after a rebuild, or
//! shows the build error in an overlay.
//!
//! Crates, and why each was picked:
//! * `axum` 0.8 (tokio-rs): the maintained, widely used router on top of hyper. It gives us
//!   HTTP/1.1 parsing, graceful shutdown (`serve(..).with_graceful_shutdown`) and
//!   server-sent events with keep-alive (`response::sse`) without writing any of that by
//!   hand. Only its `http1` and `tokio` features are enabled.
//! * `tokio`: axum's runtime; only the features used here (`rt-multi-thread`, `net`,
//!   `sync` for the broadcast and watch channels, `time`, `macros` for `select!`).
//! * `futures-util` (already in axum's tree): `stream::unfold`, to turn the broadcast
//!   receiver into the event stream.
//! * `mime_guess`: the standard extension-to-MIME table, for the files that the site does
//!   not produce itself (images, fonts, ...). The site's own types are set explicitly below.
//! * `percent-encoding` (servo's, already in axum's tree): decodes each path segment exactly
//!   once.
//!
//! `tower-http`'s `ServeDir` was considered and left out: this server needs to inject the
//! live-reload script into HTML, serve the site's own `404.html`, set its own content types,
//! and refuse symlinks that lead out of the output folder. `ServeDir` does not check where
//! symlinks lead, and wrapping the rest around it would be more code than the handler below.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::fmt;
use std::io::{self, Read};
use std::net::{IpAddr, SocketAddr};
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use futures_util::stream::{self, Stream};
use tokio::sync::{broadcast, watch};

use crate::config::Precompress;
use crate::threads::lock;

/// The URL of the live-reload script.
pub const LIVERELOAD_JS_PATH: &str = "/__profilegen/livereload.js";
/// The URL of the server-sent event stream that the live-reload script listens to.
pub const EVENTS_PATH: &str = "/__profilegen/events";

/// The tag injected into every HTML response.
const SCRIPT_TAG: &str = "<script src=\"/__profilegen/livereload.js\" defer></script>";

/// How often an idle event stream gets a keep-alive comment.
const KEEP_ALIVE_INTERVAL: Duration = Duration::from_secs(15);
/// How long the browser waits before it reconnects a dropped event stream.
const RECONNECT_DELAY: Duration = Duration::from_millis(1000);
/// How long a shutdown waits for in-flight requests before it gives up on them.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);
/// How many messages a slow browser tab may fall behind before it is told to reload.
const CHANNEL_CAPACITY: usize = 64;

/// The live-reload client, embedded in the binary and served at [`LIVERELOAD_JS_PATH`].
///
/// It listens to [`EVENTS_PATH`]: `reload` reloads the page, `build-error` shows the
/// message in a dismissable overlay (built with `textContent`, so the message is never
/// parsed as HTML), `build-fixed` removes the overlay. When the connection comes back after
/// it was lost (the server restarted), the page reloads, since the site may have changed.
const LIVERELOAD_JS: &str = r#"// profilegen serve: live reload. Not part of the built site.
(function () {
  "use strict";
  if (window.__profilegenLiveReload || typeof EventSource === "undefined") {
    return;
  }
  window.__profilegenLiveReload = true;

  var OVERLAY_ID = "__profilegen-build-error";
  var source = null;
  var connectedBefore = false;

  function removeOverlay() {
    var overlay = document.getElementById(OVERLAY_ID);
    if (overlay && overlay.parentNode) {
      overlay.parentNode.removeChild(overlay);
    }
  }

  function showOverlay(message) {
    removeOverlay();
    var overlay = document.createElement("div");
    overlay.id = OVERLAY_ID;
    overlay.setAttribute("role", "alert");
    overlay.style.cssText =
      "position:fixed;top:0;left:0;right:0;z-index:2147483647;max-height:70vh;" +
      "overflow:auto;box-sizing:border-box;margin:0;padding:12px 48px 12px 16px;" +
      "background:#fff4f4;color:#5c0000;border-bottom:3px solid #c00;" +
      "box-shadow:0 2px 10px rgba(0,0,0,.3);text-align:left;" +
      "font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;";

    var title = document.createElement("strong");
    title.textContent = "profilegen: the build failed; this page shows the last good build.";
    title.style.cssText = "display:block;font:bold 14px/1.4 system-ui,sans-serif;";

    var text = document.createElement("pre");
    text.textContent = message;
    text.style.cssText =
      "margin:8px 0 0;padding:0;white-space:pre-wrap;word-break:break-word;" +
      "background:none;color:inherit;font:inherit;border:0;";

    var close = document.createElement("button");
    close.type = "button";
    close.textContent = "\u00d7";
    close.title = "Dismiss";
    close.setAttribute("aria-label", "Dismiss the build error");
    close.style.cssText =
      "position:absolute;top:6px;right:8px;width:32px;height:32px;cursor:pointer;" +
      "border:0;background:none;color:inherit;font:24px/1 system-ui,sans-serif;";
    close.addEventListener("click", removeOverlay);

    overlay.appendChild(close);
    overlay.appendChild(title);
    overlay.appendChild(text);
    (document.body || document.documentElement).appendChild(overlay);
  }

  function connect() {
    source = new EventSource("/__profilegen/events");
    source.addEventListener("open", function () {
      if (connectedBefore) {
        // The server went away and came back: the site may have been rebuilt meanwhile.
        window.location.reload();
        return;
      }
      connectedBefore = true;
    });
    source.addEventListener("reload", function () {
      removeOverlay();
      window.location.reload();
    });
    source.addEventListener("build-error", function (event) {
      showOverlay(event.data);
    });
    source.addEventListener("build-fixed", function () {
      removeOverlay();
    });
    source.addEventListener("error", function () {
      // The browser retries by itself while the stream is CONNECTING; once it gives up
      // (CLOSED), start again after a pause.
      if (source.readyState === EventSource.CLOSED) {
        source.close();
        window.setTimeout(connect, 1000);
      }
    });
  }

  connect();
})();
"#;

/// Messages pushed to open browser tabs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReloadMessage {
    /// The site was rebuilt: reload the page (and drop any build-error overlay).
    Reload,
    /// The last build failed with this message: show it over the page.
    BuildError(String),
    /// The build works again without any output change: remove the build-error overlay.
    BuildFixed,
}

/// A cloneable handle to notify connected browsers; `send` works from any (non-async)
/// thread.
///
/// It also remembers whether the last build failed, so that a tab opened (or reloaded)
/// while the build is broken shows the error straight away.
#[derive(Clone)]
pub struct LiveReload {
    shared: Arc<ReloadShared>,
}

struct ReloadShared {
    sender: broadcast::Sender<ReloadMessage>,
    /// The error of the last build, if it failed. Locked while sending, so a new
    /// subscriber sees each message either in this state or in its channel, never both or
    /// neither.
    last_error: Mutex<Option<String>>,
}

impl LiveReload {
    /// Creates a channel with no browser connected yet.
    pub fn new() -> Self {
        let (sender, _) = broadcast::channel(CHANNEL_CAPACITY);
        LiveReload {
            shared: Arc::new(ReloadShared {
                sender,
                last_error: Mutex::new(None),
            }),
        }
    }

    /// Sends `message` to every connected browser tab. It never blocks and never fails:
    /// with no tab open, the message only updates the remembered build state.
    pub fn send(&self, message: ReloadMessage) {
        let mut last_error = self.lock_state();
        *last_error = match &message {
            ReloadMessage::BuildError(text) => Some(text.clone()),
            ReloadMessage::Reload | ReloadMessage::BuildFixed => None,
        };
        // An error only means that no tab is listening.
        let _ = self.shared.sender.send(message);
    }

    /// A receiver of every message sent from now on (what each browser tab gets).
    pub fn subscribe(&self) -> broadcast::Receiver<ReloadMessage> {
        self.shared.sender.subscribe()
    }

    /// The number of event streams (browser tabs) connected right now.
    pub fn connected(&self) -> usize {
        self.shared.sender.receiver_count()
    }

    /// Subscribes and reads the remembered build error in one step.
    fn subscribe_with_state(&self) -> (broadcast::Receiver<ReloadMessage>, Option<String>) {
        let last_error = self.lock_state();
        (self.shared.sender.subscribe(), last_error.clone())
    }

    fn lock_state(&self) -> std::sync::MutexGuard<'_, Option<String>> {
        // The state is a plain value that is always whole, so a poisoned lock is harmless.
        lock(&self.shared.last_error)
    }
}

impl Default for LiveReload {
    fn default() -> Self {
        LiveReload::new()
    }
}

impl fmt::Debug for LiveReload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LiveReload")
            .field("connected", &self.connected())
            .field("last_error", &*self.lock_state())
            .finish()
    }
}

/// Where and what to serve.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// The output folder of the build: the site root.
    pub output: PathBuf,
    /// The address to listen on (the caller's default is loopback).
    pub bind: IpAddr,
    /// The port to listen on; 0 picks a free one (see [`ServerHandle::address`]).
    pub port: u16,
}

/// A running server on its own thread with its own tokio runtime.
///
/// Dropping the handle shuts the server down too, like [`ServerHandle::shutdown`].
pub struct ServerHandle {
    /// The address the server listens on, with the actual port when 0 was asked for.
    pub address: SocketAddr,
    shutdown: watch::Sender<bool>,
    thread: Option<JoinHandle<()>>,
}

impl ServerHandle {
    /// Shuts the server down gracefully: it stops accepting connections, ends the
    /// live-reload event streams, lets in-flight requests finish (for up to 5 seconds) and
    /// joins the server thread.
    pub fn shutdown(mut self) {
        self.stop();
    }

    fn stop(&mut self) {
        let _ = self.shutdown.send(true);
        if let Some(thread) = self.thread.take() {
            // A panic on the server thread has already been reported by the panic hook.
            let _ = thread.join();
        }
    }
}

impl Drop for ServerHandle {
    fn drop(&mut self) {
        self.stop();
    }
}

impl fmt::Debug for ServerHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerHandle")
            .field("address", &self.address)
            .field("running", &self.thread.is_some())
            .finish()
    }
}

/// Binds (errors — e.g. port in use — are returned, with the address in the message) and
/// starts serving.
pub fn start_server(options: ServeOptions, reload: LiveReload) -> Result<ServerHandle, io::Error> {
    let requested = SocketAddr::new(options.bind, options.port);
    let with_address = |what: &str, err: io::Error| {
        io::Error::new(err.kind(), format!("cannot {what} {requested}: {err}"))
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .max_blocking_threads(32)
        .thread_name("profilegen-serve")
        .enable_all()
        .build()
        .map_err(|err| with_address("start the server for", err))?;
    let listener = {
        let _context = runtime.enter();
        listen(requested).map_err(|err| with_address("listen on", err))?
    };
    let address = listener
        .local_addr()
        .map_err(|err| with_address("listen on", err))?;

    let (shutdown_tx, shutdown_rx) = watch::channel(false);
    let state = AppState {
        output: Arc::from(options.output),
        reload,
        shutdown: shutdown_rx.clone(),
    };
    let app = router(state);

    let thread = std::thread::Builder::new()
        .name("profilegen-serve".to_owned())
        .spawn(move || {
            runtime.block_on(run(listener, app, shutdown_rx));
            runtime.shutdown_timeout(Duration::from_secs(1));
        })
        .map_err(|err| with_address("start the server for", err))?;

    Ok(ServerHandle {
        address,
        shutdown: shutdown_tx,
        thread: Some(thread),
    })
}

/// Binds like `tokio::net::TcpListener::bind`, without needing an async context: address
/// reuse on Unix (a restarted server can take its port back at once; a port that another
/// program listens on is still refused), and a backlog of 1024 rather than std's 128, so that
/// a burst of connections is not slowed down by dropped SYNs.
fn listen(address: SocketAddr) -> io::Result<tokio::net::TcpListener> {
    let socket = match address {
        SocketAddr::V4(_) => tokio::net::TcpSocket::new_v4()?,
        SocketAddr::V6(_) => tokio::net::TcpSocket::new_v6()?,
    };
    #[cfg(not(windows))]
    socket.set_reuseaddr(true)?;
    socket.bind(address)?;
    socket.listen(1024)
}

/// Serves until shutdown is asked for, then for at most [`SHUTDOWN_GRACE`] more.
async fn run(listener: tokio::net::TcpListener, app: Router, shutdown: watch::Receiver<bool>) {
    let mut signal = shutdown.clone();
    let server = axum::serve(listener, app).with_graceful_shutdown(async move {
        wait_for_shutdown(&mut signal).await;
    });
    let mut deadline = shutdown;
    tokio::select! {
        // `axum::serve` does not fail: accept errors are retried inside.
        _ = server => {}
        _ = async move {
            wait_for_shutdown(&mut deadline).await;
            tokio::time::sleep(SHUTDOWN_GRACE).await;
        } => {}
    }
}

/// Returns once shutdown was asked for (or the handle is gone).
async fn wait_for_shutdown(shutdown: &mut watch::Receiver<bool>) {
    let _ = shutdown.wait_for(|stop| *stop).await.map(|_| ());
}

#[derive(Clone)]
struct AppState {
    output: Arc<Path>,
    reload: LiveReload,
    shutdown: watch::Receiver<bool>,
}

fn router(state: AppState) -> Router {
    Router::new()
        .route(LIVERELOAD_JS_PATH, get(livereload_js))
        .route(EVENTS_PATH, get(events))
        .fallback(static_file)
        .with_state(state)
}

async fn livereload_js() -> Response {
    let mut response = LIVERELOAD_JS.into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/javascript; charset=utf-8"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// The server-sent event stream: the broadcast channel, plus the remembered build error
/// first, ended at shutdown so that open tabs do not hold the server up.
async fn events(
    State(state): State<AppState>,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let (receiver, last_error) = state.reload.subscribe_with_state();
    let mut pending = VecDeque::new();
    pending.push_back(
        Event::default()
            .retry(RECONNECT_DELAY)
            .comment("profilegen live reload"),
    );
    if let Some(message) = last_error {
        pending.push_back(sse_event(&ReloadMessage::BuildError(message)));
    }
    let stream = stream::unfold(
        (receiver, state.shutdown, pending),
        |(mut receiver, mut shutdown, mut pending)| async move {
            if let Some(event) = pending.pop_front() {
                return Some((Ok(event), (receiver, shutdown, pending)));
            }
            let event = tokio::select! {
                biased;
                _ = wait_for_shutdown(&mut shutdown) => return None,
                message = receiver.recv() => match message {
                    Ok(message) => sse_event(&message),
                    // Messages were missed: the page is stale either way.
                    Err(broadcast::error::RecvError::Lagged(_)) => {
                        sse_event(&ReloadMessage::Reload)
                    }
                    Err(broadcast::error::RecvError::Closed) => return None,
                },
            };
            Some((Ok(event), (receiver, shutdown, pending)))
        },
    );
    Sse::new(stream).keep_alive(
        KeepAlive::new()
            .interval(KEEP_ALIVE_INTERVAL)
            .text("keep-alive"),
    )
}

fn sse_event(message: &ReloadMessage) -> Event {
    match message {
        ReloadMessage::Reload => Event::default().event("reload").data("reload"),
        ReloadMessage::BuildError(text) => {
            let text = sse_safe_text(text);
            // Browsers drop events whose data is empty.
            let text = if text.is_empty() {
                "the build failed".to_owned()
            } else {
                text
            };
            Event::default().event("build-error").data(text)
        }
        ReloadMessage::BuildFixed => Event::default().event("build-fixed").data("build-fixed"),
    }
}

/// Prepares a build error for an SSE `data` field: line breaks become `\n` (axum splits the
/// text into `data:` lines on them), and terminal colour codes are removed.
fn sse_safe_text(text: &str) -> String {
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            if chars.peek() == Some(&'[') {
                chars.next();
                // A CSI sequence: parameters and intermediates up to a final byte @..~.
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            continue;
        }
        out.push(c);
    }
    out.trim_end().to_owned()
}

/// Serves a file of the site (every path except the two live-reload ones).
async fn static_file(State(state): State<AppState>, request: Request) -> Response {
    let method = request.method().clone();
    if method != Method::GET && method != Method::HEAD {
        let mut response = plain(StatusCode::METHOD_NOT_ALLOWED, "405 Method Not Allowed\n");
        response
            .headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
        return response;
    }
    let uri = request.uri();
    let request_path = match RequestPath::parse(uri.path()) {
        Ok(path) => path,
        Err(PathError::Malformed) => return plain(StatusCode::BAD_REQUEST, "400 Bad Request\n"),
        Err(PathError::Hidden) => {
            return finish(&method, blocking(&state, RequestPath::not_found).await)
        }
    };
    let query = uri.query().map(str::to_owned);
    let outcome = blocking(&state, move |root| {
        request_path.resolve(root, query.as_deref())
    })
    .await;
    finish(&method, outcome)
}

/// Runs file-system work on tokio's blocking pool.
async fn blocking(
    state: &AppState,
    work: impl FnOnce(&Path) -> Outcome + Send + 'static,
) -> Outcome {
    let root = Arc::clone(&state.output);
    tokio::task::spawn_blocking(move || work(&root))
        .await
        .unwrap_or(Outcome::InternalError)
}

/// What a request for a site path comes to.
#[derive(Debug)]
enum Outcome {
    /// A file to send, with this status (200, or 404 for the site's 404 page).
    File {
        status: StatusCode,
        content_type: &'static str,
        body: Vec<u8>,
    },
    /// A folder asked for without its trailing slash: this is the URL with it.
    Redirect(String),
    /// No such file and no `404.html` either.
    PlainNotFound,
    /// A panic while reading (should not happen).
    InternalError,
}

/// Turns an outcome into the response, adding the live-reload script to HTML.
fn finish(method: &Method, outcome: Outcome) -> Response {
    match outcome {
        Outcome::File {
            status,
            content_type,
            mut body,
        } => {
            if content_type.starts_with("text/html") {
                body = inject_script(body);
            }
            let length = body.len();
            let body = if *method == Method::HEAD {
                Body::empty()
            } else {
                Body::from(body)
            };
            let mut response = Response::new(body);
            *response.status_mut() = status;
            let headers = response.headers_mut();
            headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
            headers.insert(header::CONTENT_LENGTH, HeaderValue::from(length));
            headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
            headers.insert(
                header::X_CONTENT_TYPE_OPTIONS,
                HeaderValue::from_static("nosniff"),
            );
            response
        }
        Outcome::Redirect(location) => {
            let mut response = plain(StatusCode::PERMANENT_REDIRECT, "308 Permanent Redirect\n");
            // The location is built from segments of a parsed URI, so it is a valid value.
            if let Ok(value) = HeaderValue::from_str(&location) {
                response.headers_mut().insert(header::LOCATION, value);
            }
            response
        }
        Outcome::PlainNotFound => plain(StatusCode::NOT_FOUND, "404 Not Found\n"),
        Outcome::InternalError => plain(
            StatusCode::INTERNAL_SERVER_ERROR,
            "500 Internal Server Error\n",
        ),
    }
}

fn plain(status: StatusCode, text: &'static str) -> Response {
    let mut response = (status, text).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// Inserts the live-reload script right before the last `</body>`, or at the end.
fn inject_script(mut html: Vec<u8>) -> Vec<u8> {
    const CLOSE: &[u8] = b"</body";
    let position = html
        .windows(CLOSE.len())
        .rposition(|window| window.eq_ignore_ascii_case(CLOSE))
        .unwrap_or(html.len());
    html.splice(position..position, SCRIPT_TAG.bytes());
    html
}

/// Why a request path is refused before the file system is looked at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathError {
    /// Traversal attempts, encoded separators, NUL and other control characters, invalid
    /// UTF-8: 400.
    Malformed,
    /// A hidden name (`.profilegen-staging`, `.profilegen-manifest`, ...): 404.
    Hidden,
}

/// A request path, checked: each segment is one plain file name, decoded exactly once.
#[derive(Debug)]
struct RequestPath {
    /// The segments as they came, still percent-encoded, for redirects.
    raw: Vec<String>,
    /// The decoded segments: plain file names.
    names: Vec<String>,
    /// Whether the path ends with `/` (or is `/`).
    trailing_slash: bool,
}

impl RequestPath {
    fn parse(raw_path: &str) -> Result<RequestPath, PathError> {
        if !raw_path.starts_with('/') {
            return Err(PathError::Malformed);
        }
        let mut raw = Vec::new();
        let mut names = Vec::new();
        // Empty segments (`//`) are skipped; each name is then a relative component, so no
        // segment can restart the path at the root.
        for segment in raw_path.split('/').filter(|s| !s.is_empty()) {
            let name = decode_segment(segment)?;
            raw.push(segment.to_owned());
            names.push(name);
        }
        Ok(RequestPath {
            raw,
            names,
            trailing_slash: raw_path.ends_with('/'),
        })
    }

    /// Looks the path up under `root`, following symlinks only where they stay inside it.
    fn resolve(&self, root: &Path, query: Option<&str>) -> Outcome {
        let Some(root) = canonical_root(root) else {
            return Outcome::PlainNotFound;
        };
        let mut candidate = root.clone();
        candidate.extend(&self.names);
        let Some((path, metadata)) = inside(&root, &candidate) else {
            // As a file as it is, a precompressed file has no URL that ends in a slash.
            let file = (!self.trailing_slash)
                .then(|| read_precompressed(&root, &candidate, StatusCode::OK))
                .flatten();
            return file.unwrap_or_else(|| not_found_page(&root));
        };
        if metadata.is_dir() {
            if !self.trailing_slash && !self.raw.is_empty() {
                let mut location = String::new();
                for segment in &self.raw {
                    location.push('/');
                    location.push_str(segment);
                }
                location.push('/');
                if let Some(query) = query {
                    location.push('?');
                    location.push_str(query);
                }
                return Outcome::Redirect(location);
            }
            return read_page(&root, &path.join("index.html"), StatusCode::OK)
                .unwrap_or_else(|| not_found_page(&root));
        }
        if metadata.is_file() && !self.trailing_slash {
            return read_file(&root, &path, StatusCode::OK);
        }
        not_found_page(&root)
    }

    /// The 404 outcome for a path refused as hidden.
    fn not_found(root: &Path) -> Outcome {
        match canonical_root(root) {
            Some(root) => not_found_page(&root),
            None => Outcome::PlainNotFound,
        }
    }
}

/// The file names that the request path `raw_path` (the path of a request's URI, still
/// percent-encoded) asks for under the output folder, as the server looks them up, or why
/// it is refused before the file system is looked at.
///
/// Each name is one segment decoded exactly once: never empty, `.` or `..`, never holding
/// a path separator or a control character, so joined to the output folder the names
/// cannot leave it. Empty segments (`//`) are skipped.
///
/// ```
/// # use profilegen::serve::{request_path_names, PathError};
/// assert_eq!(request_path_names("/papers/a%20b/"), Ok(vec!["papers".into(), "a b".into()]));
/// assert_eq!(request_path_names("/a/%2e%2e/b"), Err(PathError::Malformed));
/// assert_eq!(request_path_names("/.profilegen-manifest"), Err(PathError::Hidden));
/// ```
pub fn request_path_names(raw_path: &str) -> Result<Vec<String>, PathError> {
    RequestPath::parse(raw_path).map(|path| path.names)
}

/// Decodes one path segment, once, and checks that it is a plain file name.
fn decode_segment(segment: &str) -> Result<String, PathError> {
    if segment == "." || segment == ".." {
        return Err(PathError::Malformed);
    }
    let name = percent_encoding::percent_decode_str(segment)
        .decode_utf8()
        .map_err(|_| PathError::Malformed)?;
    let forbidden =
        |c: char| c == '/' || c == '\\' || c.is_control() || (cfg!(windows) && c == ':');
    if name == "." || name == ".." || name.contains(forbidden) {
        return Err(PathError::Malformed);
    }
    let mut components = Path::new(name.as_ref()).components();
    if !matches!(
        (components.next(), components.next()),
        (Some(Component::Normal(_)), None)
    ) {
        return Err(PathError::Malformed);
    }
    // Hidden files (the builder's staging folder and manifest, editor files) are not part
    // of the site; `.well-known` is the one dot folder that sites publish.
    if name.starts_with('.') && name != ".well-known" {
        return Err(PathError::Hidden);
    }
    Ok(name.into_owned())
}

/// The output folder with every symlink resolved, if it exists.
fn canonical_root(root: &Path) -> Option<PathBuf> {
    std::fs::canonicalize(root).ok()
}

/// `path` with every symlink resolved, and its metadata, if it exists and stays inside
/// `root` (which is canonical).
fn inside(root: &Path, path: &Path) -> Option<(PathBuf, std::fs::Metadata)> {
    let resolved = std::fs::canonicalize(path).ok()?;
    if !resolved.starts_with(root) {
        return None;
    }
    let metadata = std::fs::metadata(&resolved).ok()?;
    Some((resolved, metadata))
}

/// Reads a (canonical) file whole, or the 404 page if it vanished meanwhile.
fn read_file(root: &Path, path: &Path, status: StatusCode) -> Outcome {
    match std::fs::read(path) {
        Ok(body) => Outcome::File {
            status,
            content_type: content_type(path),
            body,
        },
        Err(_) if status == StatusCode::OK => not_found_page(root),
        Err(_) => Outcome::PlainNotFound,
    }
}

/// The site's own `404.html` with status 404, or a plain 404.
fn not_found_page(root: &Path) -> Outcome {
    read_page(root, &root.join("404.html"), StatusCode::NOT_FOUND).unwrap_or(Outcome::PlainNotFound)
}

/// The page at `path` (a file the server looks for itself, such as a folder's
/// `index.html`), as it is or precompressed, with status `status`; `None` if there is
/// no such file inside `root`.
fn read_page(root: &Path, path: &Path, status: StatusCode) -> Option<Outcome> {
    match inside(root, path) {
        Some((page, metadata)) if metadata.is_file() => Some(read_file(root, &page, status)),
        _ => read_precompressed(root, path, status),
    }
}

/// The file a precompressed site holds for `path` (see
/// [`crate::config::Precompress::Gzip`]), decompressed, with status `status`: `None`
/// if there is none inside `root`, or it is not gzip.
fn read_precompressed(root: &Path, path: &Path, status: StatusCode) -> Option<Outcome> {
    let name = path.to_str()?;
    let file = Precompress::Gzip.file_path(name.to_string());
    if file == name {
        return None;
    }
    let (file, metadata) = inside(root, Path::new(&file))?;
    if !metadata.is_file() {
        return None;
    }
    let compressed = std::fs::read(file).ok()?;
    let mut body = Vec::with_capacity(compressed.len() * 3);
    flate2::read::GzDecoder::new(compressed.as_slice())
        .read_to_end(&mut body)
        .ok()?;
    Some(Outcome::File {
        status,
        content_type: content_type(path),
        body,
    })
}

/// The `Content-Type` for a file of the site, by its name.
fn content_type(path: &Path) -> &'static str {
    let name = path
        .file_name()
        .and_then(|name| name.to_str())
        .unwrap_or_default()
        .to_ascii_lowercase();
    // A feed is `atom.xml`, or `<page>.atom.xml` beside a page that is a file.
    if name == "atom.xml" || name.ends_with(".atom.xml") {
        return "application/atom+xml; charset=utf-8";
    }
    let extension = name.rsplit_once('.').map_or("", |(_, extension)| extension);
    match extension {
        "html" | "htm" => "text/html; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "js" | "mjs" => "application/javascript; charset=utf-8",
        "json" => "application/json",
        "xml" => "application/xml; charset=utf-8",
        "txt" => "text/plain; charset=utf-8",
        "bib" => "application/x-bibtex; charset=utf-8",
        "ris" => "application/x-research-info-systems; charset=utf-8",
        "svg" => "image/svg+xml",
        "ico" => "image/x-icon",
        "webmanifest" => "application/manifest+json",
        "md" => "text/markdown; charset=utf-8",
        "" => "application/octet-stream",
        other => mime_guess::from_ext(other)
            .first_raw()
            .unwrap_or("application/octet-stream"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::net::TcpStream;
    use std::sync::Barrier;
    use std::time::Instant;

    /// A reply read off the wire.
    #[derive(Debug)]
    struct Reply {
        status: u16,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
    }

    impl Reply {
        fn header(&self, name: &str) -> Option<&str> {
            self.headers
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.as_str())
        }

        fn text(&self) -> String {
            String::from_utf8_lossy(&self.body).into_owned()
        }
    }

    /// Sends `target` exactly as given (no normalization) and reads the whole reply.
    fn raw_request(address: SocketAddr, method: &str, target: &str) -> Reply {
        let mut stream = TcpStream::connect(address).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        write!(
            stream,
            "{method} {target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut bytes = Vec::new();
        stream.read_to_end(&mut bytes).expect("read reply");
        parse_reply(&bytes)
    }

    fn get(address: SocketAddr, target: &str) -> Reply {
        raw_request(address, "GET", target)
    }

    fn parse_reply(bytes: &[u8]) -> Reply {
        let end = bytes
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .unwrap_or_else(|| panic!("no header end in {:?}", String::from_utf8_lossy(bytes)));
        let head = std::str::from_utf8(&bytes[..end]).unwrap();
        let mut lines = head.split("\r\n");
        let status = lines
            .next()
            .unwrap()
            .split(' ')
            .nth(1)
            .unwrap()
            .parse()
            .unwrap();
        let headers: Vec<(String, String)> = lines
            .map(|line| {
                let (name, value) = line.split_once(':').unwrap();
                (name.trim().to_owned(), value.trim().to_owned())
            })
            .collect();
        let mut body = bytes[end + 4..].to_vec();
        let chunked = headers.iter().any(|(n, v)| {
            n.eq_ignore_ascii_case("transfer-encoding") && v.eq_ignore_ascii_case("chunked")
        });
        if chunked {
            body = dechunk(&body);
        }
        Reply {
            status,
            headers,
            body,
        }
    }

    fn dechunk(mut data: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        loop {
            let line_end = data.windows(2).position(|w| w == b"\r\n").unwrap();
            let size =
                usize::from_str_radix(std::str::from_utf8(&data[..line_end]).unwrap(), 16).unwrap();
            data = &data[line_end + 2..];
            if size == 0 {
                return out;
            }
            out.extend_from_slice(&data[..size]);
            data = &data[size + 2..];
        }
    }

    const SECRET: &str = "TOP-SECRET-DO-NOT-SERVE";

    /// A temp dir with `site/` (the output folder) and a secret file and folder beside it.
    struct Fixture {
        dir: tempfile::TempDir,
    }

    impl Fixture {
        fn new() -> Fixture {
            let dir = tempfile::tempdir().unwrap();
            let site = dir.path().join("site");
            let write = |path: &str, content: &str| {
                let path = site.join(path);
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(path, content).unwrap();
            };
            write(
                "index.html",
                "<!doctype html><html><head><title>Home</title></head><body><h1>Home</h1></BODY></html>",
            );
            write(
                "404.html",
                "<html><body><h1>Page not found</h1></body></html>",
            );
            write("about/index.html", "<html><body>About</body></html>");
            write("authors/zhu/index.html", "<p>no body tag</p>");
            write(
                "authors/zhu/publications.bib",
                "@misc{zhu2026, title={X}}\n",
            );
            write("authors/zhu/publications.ris", "TY  - GEN\nER  - \n");
            write("authors/zhu/atom.xml", "<feed/>");
            write("authors/zhu.atom.xml", "<feed/>");
            write("atom.xml", "<feed></body></feed>");
            write("sitemap.xml", "<urlset/>");
            write("style.css", "body { color: black; } /* </body> */");
            write("site.js", "console.log('</body>');");
            write("favicon.svg", "<svg xmlns=\"http://www.w3.org/2000/svg\"/>");
            write("data/papers.json", "[\"</body>\"]");
            write("robots.txt", "User-agent: *\n");
            write("photo.png", "\u{89}PNG");
            write(".profilegen-manifest", "index.html\n");
            write(".well-known/security.txt", "Contact: x\n");
            write("%2e%2e/index.html", "LITERAL-PERCENT-NAME");
            write("subjects/cs.DC/index.html", "<body>cs.DC</body>");
            std::fs::write(dir.path().join("secret.txt"), SECRET).unwrap();
            std::fs::create_dir(dir.path().join("outside")).unwrap();
            std::fs::write(dir.path().join("outside/index.html"), SECRET).unwrap();
            std::fs::write(dir.path().join("outside/secret.txt"), SECRET).unwrap();
            Fixture { dir }
        }

        fn site(&self) -> PathBuf {
            self.dir.path().join("site")
        }

        fn start(&self) -> (ServerHandle, LiveReload) {
            let reload = LiveReload::new();
            let server = start_server(
                ServeOptions {
                    output: self.site(),
                    bind: IpAddr::from([127, 0, 0, 1]),
                    port: 0,
                },
                reload.clone(),
            )
            .expect("start server");
            (server, reload)
        }
    }

    #[test]
    fn serves_index_files_and_redirects_folders() {
        let fixture = Fixture::new();
        let (server, _reload) = fixture.start();
        let address = server.address;
        assert!(address.port() != 0);

        let home = get(address, "/");
        assert_eq!(home.status, 200);
        assert_eq!(
            home.header("content-type"),
            Some("text/html; charset=utf-8")
        );
        assert_eq!(home.header("cache-control"), Some("no-cache"));
        assert!(home.text().contains("<h1>Home</h1>"));

        let about = get(address, "/about/");
        assert_eq!(about.status, 200);
        assert!(about.text().starts_with("<html><body>About"));
        let about = get(address, "/about/index.html");
        assert_eq!(about.status, 200);

        let redirect = get(address, "/about");
        assert_eq!(redirect.status, 308);
        assert_eq!(redirect.header("location"), Some("/about/"));
        let redirect = get(address, "/subjects/cs.DC?x=1");
        assert_eq!(redirect.status, 308);
        assert_eq!(redirect.header("location"), Some("/subjects/cs.DC/?x=1"));
        // An empty segment never turns the redirect into a protocol-relative URL.
        let redirect = get(address, "//about");
        assert_eq!(redirect.status, 308);
        assert_eq!(redirect.header("location"), Some("/about/"));
        assert_eq!(get(address, "/subjects/cs.DC/").status, 200);

        // A file asked for as a folder does not exist.
        assert_eq!(get(address, "/style.css/").status, 404);
        // A folder without index.html is a 404.
        assert_eq!(get(address, "/data/").status, 404);

        // The query string does not change the file.
        let with_query = get(address, "/about/?q=1");
        assert_eq!(with_query.status, 200);

        // Double encoding is decoded once: `%252e%252e` is the literal name `%2e%2e`.
        let literal = get(address, "/%252e%252e/");
        assert_eq!(literal.status, 200);
        assert!(literal.text().contains("LITERAL-PERCENT-NAME"));

        // Only dot name served: .well-known.
        assert_eq!(get(address, "/.well-known/security.txt").status, 200);
        server.shutdown();
    }

    #[test]
    fn content_types() {
        let fixture = Fixture::new();
        let (server, _reload) = fixture.start();
        let cases = [
            ("/style.css", "text/css; charset=utf-8"),
            ("/site.js", "application/javascript; charset=utf-8"),
            ("/atom.xml", "application/atom+xml; charset=utf-8"),
            (
                "/authors/zhu.atom.xml",
                "application/atom+xml; charset=utf-8",
            ),
            (
                "/authors/zhu/atom.xml",
                "application/atom+xml; charset=utf-8",
            ),
            ("/sitemap.xml", "application/xml; charset=utf-8"),
            ("/data/papers.json", "application/json"),
            (
                "/authors/zhu/publications.bib",
                "application/x-bibtex; charset=utf-8",
            ),
            (
                "/authors/zhu/publications.ris",
                "application/x-research-info-systems; charset=utf-8",
            ),
            ("/favicon.svg", "image/svg+xml"),
            ("/robots.txt", "text/plain; charset=utf-8"),
            ("/photo.png", "image/png"),
            ("/404.html", "text/html; charset=utf-8"),
            (LIVERELOAD_JS_PATH, "application/javascript; charset=utf-8"),
        ];
        for (path, expected) in cases {
            let reply = get(server.address, path);
            assert_eq!(reply.status, 200, "{path}");
            assert_eq!(reply.header("content-type"), Some(expected), "{path}");
            assert_eq!(reply.header("cache-control"), Some("no-cache"), "{path}");
        }
        server.shutdown();
    }

    #[test]
    fn head_get_and_other_methods() {
        let fixture = Fixture::new();
        let (server, _reload) = fixture.start();
        let head = raw_request(server.address, "HEAD", "/style.css");
        assert_eq!(head.status, 200);
        let length = std::fs::metadata(fixture.site().join("style.css"))
            .unwrap()
            .len();
        assert_eq!(
            head.header("content-length"),
            Some(length.to_string().as_str())
        );
        assert!(head.body.is_empty());

        let head = raw_request(server.address, "HEAD", "/");
        let get_reply = get(server.address, "/");
        assert_eq!(
            head.header("content-length"),
            Some(get_reply.body.len().to_string().as_str())
        );
        assert!(head.body.is_empty());

        for method in ["POST", "PUT", "DELETE", "OPTIONS", "PATCH"] {
            let reply = raw_request(server.address, method, "/index.html");
            assert_eq!(reply.status, 405, "{method}");
            assert_eq!(reply.header("allow"), Some("GET, HEAD"));
        }
        assert_eq!(raw_request(server.address, "POST", EVENTS_PATH).status, 405);
        server.shutdown();
    }

    #[test]
    fn missing_files_get_the_sites_404_page() {
        let fixture = Fixture::new();
        let (server, _reload) = fixture.start();
        let reply = get(server.address, "/no/such/page/");
        assert_eq!(reply.status, 404);
        assert_eq!(
            reply.header("content-type"),
            Some("text/html; charset=utf-8")
        );
        let text = reply.text();
        assert!(text.contains("Page not found"));
        assert!(
            text.contains(SCRIPT_TAG),
            "404 page gets live reload: {text}"
        );
        assert_eq!(get(server.address, "/missing.css").status, 404);

        std::fs::remove_file(fixture.site().join("404.html")).unwrap();
        let reply = get(server.address, "/no/such/page/");
        assert_eq!(reply.status, 404);
        assert_eq!(
            reply.header("content-type"),
            Some("text/plain; charset=utf-8")
        );
        assert_eq!(reply.text(), "404 Not Found\n");
        server.shutdown();
    }

    #[test]
    fn output_folder_may_appear_later() {
        let dir = tempfile::tempdir().unwrap();
        let site = dir.path().join("public");
        let server = start_server(
            ServeOptions {
                output: site.clone(),
                bind: IpAddr::from([127, 0, 0, 1]),
                port: 0,
            },
            LiveReload::new(),
        )
        .unwrap();
        assert_eq!(get(server.address, "/").status, 404);
        std::fs::create_dir(&site).unwrap();
        std::fs::write(site.join("index.html"), "<body>now</body>").unwrap();
        assert_eq!(get(server.address, "/").status, 200);
        server.shutdown();
    }

    #[test]
    fn traversal_is_refused() {
        let fixture = Fixture::new();
        let (server, _reload) = fixture.start();
        let address = server.address;
        let targets = [
            "/../secret.txt",
            "/../../secret.txt",
            "/about/../../secret.txt",
            "/./../secret.txt",
            "/..",
            "/../outside/",
            "/%2e%2e/secret.txt",
            "/%2E%2E/secret.txt",
            "/%2e./secret.txt",
            "/.%2e/secret.txt",
            "/%2e%2e%2fsecret.txt",
            "/%2e%2e%2Fsecret.txt",
            "/..%2fsecret.txt",
            "/..%2Fsecret.txt",
            "/about%2f..%2f..%2fsecret.txt",
            "/%2e%2e%5csecret.txt",
            "/..%5csecret.txt",
            "/%5c..%5csecret.txt",
            "/..\\secret.txt",
            "/about\\..\\..\\secret.txt",
            "/%252e%252e/secret.txt",
            "/%252e%252e%252fsecret.txt",
            "/..%252fsecret.txt",
            "/%c0%ae%c0%ae/secret.txt",
            "/%c0%af",
            "/index.html%00",
            "/%00/secret.txt",
            "/index.html%00.css",
            "/%2fetc%2fpasswd",
            "/%2F..%2Fsecret.txt",
            "//etc/passwd",
            "///../secret.txt",
            "/C:/Windows/win.ini",
            "/C:%5cWindows%5cwin.ini",
            "http://localhost/../secret.txt",
            "http://localhost/%2e%2e/secret.txt",
            "/.profilegen-manifest",
            "/.%2e",
            "../secret.txt",
            "secret.txt",
            "*",
        ];
        for target in targets {
            let reply = get(address, target);
            assert!(
                reply.status == 400 || reply.status == 404,
                "{target}: status {}",
                reply.status
            );
            assert!(!reply.text().contains(SECRET), "{target} leaked the secret");
            assert!(
                !reply.text().contains("root:"),
                "{target} leaked /etc/passwd"
            );
        }
        // And one with a NUL byte on the wire.
        let mut stream = TcpStream::connect(address).unwrap();
        stream
            .write_all(b"GET /index.html\0 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            .unwrap();
        let mut bytes = Vec::new();
        let _ = stream.read_to_end(&mut bytes);
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            text.is_empty() || text.starts_with("HTTP/1.1 400"),
            "{text}"
        );
        server.shutdown();
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_must_stay_inside() {
        use std::os::unix::fs::symlink;
        let fixture = Fixture::new();
        let site = fixture.site();
        symlink(fixture.dir.path().join("secret.txt"), site.join("out.txt")).unwrap();
        symlink("../secret.txt", site.join("out-relative.txt")).unwrap();
        symlink(fixture.dir.path().join("outside"), site.join("out-dir")).unwrap();
        symlink("/etc/passwd", site.join("passwd")).unwrap();
        symlink("index.html", site.join("in.html")).unwrap();
        symlink("about", site.join("in-dir")).unwrap();
        // A symlinked 404 page that points outside is not used either.
        std::fs::remove_file(site.join("404.html")).unwrap();
        symlink(
            fixture.dir.path().join("outside/index.html"),
            site.join("404.html"),
        )
        .unwrap();

        let (server, _reload) = fixture.start();
        for target in [
            "/out.txt",
            "/out-relative.txt",
            "/out-dir/",
            "/out-dir/secret.txt",
            "/out-dir",
            "/passwd",
        ] {
            let reply = get(server.address, target);
            assert_eq!(reply.status, 404, "{target}");
            assert!(!reply.text().contains(SECRET), "{target} leaked the secret");
            assert!(
                !reply.text().contains("root:"),
                "{target} leaked /etc/passwd"
            );
        }
        let reply = get(server.address, "/in.html");
        assert_eq!(reply.status, 200);
        assert!(reply.text().contains("<h1>Home</h1>"));
        let reply = get(server.address, "/in-dir/");
        assert_eq!(reply.status, 200);
        assert!(reply.text().contains("About"));
        assert_eq!(get(server.address, "/in-dir").status, 308);
        server.shutdown();
    }

    #[cfg(unix)]
    #[test]
    fn output_folder_reached_through_a_symlink() {
        use std::os::unix::fs::symlink;
        let fixture = Fixture::new();
        let link = fixture.dir.path().join("link-to-site");
        symlink(fixture.site(), &link).unwrap();
        let server = start_server(
            ServeOptions {
                output: link,
                bind: IpAddr::from([127, 0, 0, 1]),
                port: 0,
            },
            LiveReload::new(),
        )
        .unwrap();
        assert_eq!(get(server.address, "/").status, 200);
        assert_eq!(get(server.address, "/../secret.txt").status, 400);
        server.shutdown();
    }

    #[test]
    fn script_is_injected_into_html_only() {
        let fixture = Fixture::new();
        let (server, _reload) = fixture.start();
        let home = get(server.address, "/").text();
        assert!(
            home.ends_with(&format!("<h1>Home</h1>{SCRIPT_TAG}</BODY></html>")),
            "{home}"
        );
        assert_eq!(home.matches(SCRIPT_TAG).count(), 1);
        let no_body = get(server.address, "/authors/zhu/").text();
        assert_eq!(no_body, format!("<p>no body tag</p>{SCRIPT_TAG}"));
        for path in [
            "/style.css",
            "/data/papers.json",
            "/site.js",
            "/atom.xml",
            "/favicon.svg",
        ] {
            let reply = get(server.address, path);
            let on_disk = std::fs::read(fixture.site().join(&path[1..])).unwrap();
            assert_eq!(reply.body, on_disk, "{path} is served as it is");
        }
        let script = get(server.address, LIVERELOAD_JS_PATH).text();
        assert!(script.contains("new EventSource(\"/__profilegen/events\")"));
        assert!(script.contains("textContent = message"));
        assert!(!script.contains("innerHTML"));
        server.shutdown();
    }

    #[test]
    fn request_paths_are_checked_before_the_file_system() {
        use PathError::{Hidden, Malformed};
        let parse = |raw: &str| RequestPath::parse(raw).map(|p| (p.names, p.trailing_slash));
        assert_eq!(parse("/"), Ok((vec![], true)));
        assert_eq!(
            parse("/a//b%20c/"),
            Ok((vec!["a".to_owned(), "b c".to_owned()], true))
        );
        assert_eq!(parse("/%252e%252e"), Ok((vec!["%2e%2e".to_owned()], false)));
        assert_eq!(parse("/100%"), Ok((vec!["100%".to_owned()], false)));
        assert_eq!(
            parse("/.well-known/x"),
            Ok((vec![".well-known".to_owned(), "x".to_owned()], false))
        );
        for raw in [
            "/..", "/.", "/a/../b", "/%2e%2e", "/%2E.", "/.%2e", "/..%2f", "/a%2fb", "/a%2Fb",
            "/a%5cb", "/a\\b", "/%00", "/a%0a", "/%7f", "/%c0%ae", "/%ff", "a", "*", "",
        ] {
            assert_eq!(parse(raw).map(|_| ()), Err(Malformed), "{raw}");
        }
        for raw in [
            "/.profilegen-manifest",
            "/.profilegen-staging/1",
            "/a/.git/config",
            "/.%2fx",
        ] {
            assert!(parse(raw).is_err(), "{raw}");
        }
        assert_eq!(parse("/.profilegen-manifest").map(|_| ()), Err(Hidden));
    }

    #[test]
    fn inject_script_positions() {
        let inject =
            |html: &str| String::from_utf8(inject_script(html.as_bytes().to_vec())).unwrap();
        assert_eq!(
            inject("<body>a</body>"),
            format!("<body>a{SCRIPT_TAG}</body>")
        );
        assert_eq!(
            inject("<body><script>'</body>'</script></Body >"),
            format!("<body><script>'</body>'</script>{SCRIPT_TAG}</Body >")
        );
        assert_eq!(inject(""), SCRIPT_TAG);
        assert_eq!(inject("<p>x"), format!("<p>x{SCRIPT_TAG}"));
    }

    #[test]
    fn build_error_text_is_cleaned_for_sse() {
        assert_eq!(
            sse_safe_text("\u{1b}[1;31merror\u{1b}[0m: bad\r\nline 2\rline 3\n"),
            "error: bad\nline 2\nline 3"
        );
        let event = format!(
            "{:?}",
            sse_event(&ReloadMessage::BuildError("a\r\nb".to_owned()))
        );
        assert!(event.contains("build-error"), "{event}");
    }

    /// Reads from an event stream until `needle` shows up, or panics after `timeout`.
    fn read_until(stream: &mut TcpStream, seen: &mut String, needle: &str, timeout: Duration) {
        let deadline = Instant::now() + timeout;
        let mut buffer = [0u8; 4096];
        while !seen.contains(needle) {
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(!left.is_zero(), "no {needle:?} in time; got {seen:?}");
            stream.set_read_timeout(Some(left)).unwrap();
            match stream.read(&mut buffer) {
                Ok(0) => panic!("stream closed before {needle:?}; got {seen:?}"),
                Ok(n) => seen.push_str(&String::from_utf8_lossy(&buffer[..n])),
                Err(err)
                    if err.kind() == io::ErrorKind::WouldBlock
                        || err.kind() == io::ErrorKind::TimedOut =>
                {
                    panic!("no {needle:?} in time; got {seen:?}")
                }
                Err(err) => panic!("read: {err}"),
            }
        }
    }

    fn open_events(address: SocketAddr) -> (TcpStream, String) {
        let mut stream = TcpStream::connect(address).unwrap();
        write!(
            stream,
            "GET {EVENTS_PATH} HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n"
        )
        .unwrap();
        let mut seen = String::new();
        read_until(
            &mut stream,
            &mut seen,
            "retry: 1000",
            Duration::from_secs(5),
        );
        assert!(seen.starts_with("HTTP/1.1 200"), "{seen}");
        assert!(seen
            .to_ascii_lowercase()
            .contains("content-type: text/event-stream"));
        (stream, seen)
    }

    #[test]
    fn events_reach_the_browser() {
        let fixture = Fixture::new();
        let (server, reload) = fixture.start();
        let mut test_receiver = reload.subscribe();
        let (mut stream, mut seen) = open_events(server.address);
        // The handler subscribes before it answers.
        assert_eq!(reload.connected(), 2);

        reload.send(ReloadMessage::Reload);
        read_until(
            &mut stream,
            &mut seen,
            "event: reload",
            Duration::from_secs(1),
        );
        assert_eq!(test_receiver.try_recv().unwrap(), ReloadMessage::Reload);

        seen.clear();
        reload.send(ReloadMessage::BuildError(
            "error: bad <b>record</b>\r\n  --> a.txt:1:1".to_owned(),
        ));
        read_until(
            &mut stream,
            &mut seen,
            "--> a.txt:1:1",
            Duration::from_secs(1),
        );
        assert!(
            seen.contains(
                "event: build-error\ndata: error: bad <b>record</b>\ndata:   --> a.txt:1:1"
            ),
            "{seen:?}"
        );

        // A tab opened while the build is broken gets the error at once.
        let (mut late, mut late_seen) = open_events(server.address);
        read_until(
            &mut late,
            &mut late_seen,
            "event: build-error",
            Duration::from_secs(1),
        );

        seen.clear();
        reload.send(ReloadMessage::BuildFixed);
        read_until(
            &mut stream,
            &mut seen,
            "event: build-fixed",
            Duration::from_secs(1),
        );
        read_until(
            &mut late,
            &mut late_seen,
            "event: build-fixed",
            Duration::from_secs(1),
        );

        // An open event stream does not hold up shutdown.
        let started = Instant::now();
        server.shutdown();
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "{:?}",
            started.elapsed()
        );
        // The streams were ended (the final zero-length chunk), not cut.
        read_until(&mut stream, &mut seen, "0\r\n\r\n", Duration::from_secs(1));
        drop(test_receiver);
        assert_eq!(reload.connected(), 0);
    }

    #[test]
    fn messages_without_browsers_do_not_fail() {
        let reload = LiveReload::default();
        reload.send(ReloadMessage::Reload);
        reload.send(ReloadMessage::BuildError(String::new()));
        let debug = format!("{reload:?}");
        assert!(debug.contains("last_error: Some"), "{debug}");
        let from_thread = reload.clone();
        std::thread::spawn(move || from_thread.send(ReloadMessage::BuildFixed))
            .join()
            .unwrap();
        assert_eq!(*reload.lock_state(), None);
    }

    #[test]
    fn concurrent_requests_while_files_are_replaced() {
        let fixture = Fixture::new();
        let site = fixture.site();
        let size = 64 * 1024;
        let versions = [vec![b'a'; size], vec![b'b'; size + 1]];
        std::fs::write(site.join("hot.txt"), &versions[0]).unwrap();
        let (server, _reload) = fixture.start();
        let address = server.address;

        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let writer = {
            let stop = Arc::clone(&stop);
            let site = site.clone();
            let versions = versions.clone();
            std::thread::spawn(move || {
                let mut round = 0usize;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) && round < 1_000_000 {
                    let staged = site.join(".profilegen-staging-hot");
                    std::fs::write(&staged, &versions[round % 2]).unwrap();
                    std::fs::rename(&staged, site.join("hot.txt")).unwrap();
                    round += 1;
                }
                round
            })
        };

        let clients = 200;
        let barrier = Arc::new(Barrier::new(clients));
        let threads: Vec<_> = (0..clients)
            .map(|i| {
                let barrier = Arc::clone(&barrier);
                let versions = versions.clone();
                std::thread::spawn(move || {
                    barrier.wait();
                    let path = if i % 4 == 0 { "/" } else { "/hot.txt" };
                    let reply = get(address, path);
                    assert_eq!(reply.status, 200, "request {i}");
                    if path == "/hot.txt" {
                        assert!(
                            versions.contains(&reply.body),
                            "request {i}: torn body of {} bytes",
                            reply.body.len()
                        );
                    } else {
                        assert!(reply.text().contains(SCRIPT_TAG));
                    }
                })
            })
            .collect();
        let mut failures = 0;
        for thread in threads {
            if thread.join().is_err() {
                failures += 1;
            }
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        let rounds = writer.join().unwrap();
        assert_eq!(failures, 0);
        assert!(rounds > 0);
        server.shutdown();
    }

    #[test]
    fn port_in_use_is_an_error_naming_the_address() {
        let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = taken.local_addr().unwrap().port();
        let err = start_server(
            ServeOptions {
                output: PathBuf::from("."),
                bind: IpAddr::from([127, 0, 0, 1]),
                port,
            },
            LiveReload::new(),
        )
        .unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AddrInUse);
        assert!(
            err.to_string().contains(&format!("127.0.0.1:{port}")),
            "{err}"
        );
    }

    #[test]
    fn serves_on_ipv6_loopback() {
        let fixture = Fixture::new();
        let options = ServeOptions {
            output: fixture.site(),
            bind: IpAddr::from(std::net::Ipv6Addr::LOCALHOST),
            port: 0,
        };
        let server = match start_server(options, LiveReload::new()) {
            Ok(server) => server,
            // A machine without IPv6.
            Err(err) if err.kind() == io::ErrorKind::AddrNotAvailable => return,
            Err(err) => panic!("{err}"),
        };
        assert!(server.address.is_ipv6());
        assert_eq!(get(server.address, "/").status, 200);
        server.shutdown();
    }

    #[test]
    fn shutdown_joins_and_closes_the_port() {
        let fixture = Fixture::new();
        let (server, _reload) = fixture.start();
        let address = server.address;
        assert_eq!(get(address, "/").status, 200);
        // An idle keep-alive connection does not hold up shutdown either.
        let mut idle = TcpStream::connect(address).unwrap();
        write!(idle, "GET / HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
        let mut buffer = [0u8; 512];
        assert!(idle.read(&mut buffer).unwrap() > 0);

        let started = Instant::now();
        server.shutdown();
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "{:?}",
            started.elapsed()
        );
        assert!(TcpStream::connect(address).is_err());

        // Dropping a handle shuts down too.
        let (server, _reload) = fixture.start();
        let address = server.address;
        drop(server);
        assert!(TcpStream::connect(address).is_err());
    }
}
