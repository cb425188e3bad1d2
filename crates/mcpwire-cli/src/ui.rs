//! Everything written to stderr while a request runs: progress (a bar redrawn in place on
//! a terminal, a plain line per update elsewhere), the server's log messages, and notes.
//! One lock keeps them from tearing each other: a note first erases the bar, then the bar
//! is drawn again.

use std::io::{IsTerminal, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcpwire::jsonrpc::ProgressUpdate;
use mcpwire::protocol::logging::LoggingMessageNotificationParams;
use serde_json::Value;

/// The width of the bar itself, in cells.
const BAR_CELLS: usize = 30;

/// The least time between two draws of the bar: a server may send progress far faster
/// than a terminal shows it, and drawing each would keep the CLI busy drawing. An update
/// that comes sooner waits ([`State::pending`]) and is drawn when the time is up, unless
/// a later one replaces it first: the latest is always drawn, at most this late.
const REDRAW_EVERY: Duration = Duration::from_millis(80);

/// At most this many lines wait for a question's answer ([`State::held`]) ...
const MAX_HELD_LINES: usize = 200;
/// ... and at most this many bytes of them; what arrives past either is counted, not kept.
const MAX_HELD_BYTES: usize = 64 * 1024;

#[derive(Default)]
struct State {
    /// The bar as last drawn (redrawn after a note).
    bar: Option<String>,
    /// Updates so far (animates a bar without a total).
    updates: usize,
    /// When the bar was last drawn (see [`REDRAW_EVERY`]).
    drawn_at: Option<Instant>,
    /// The latest update not drawn yet, as it came sooner than [`REDRAW_EVERY`].
    pending: Option<ProgressUpdate>,
    /// A task will draw `pending` when the time is up.
    redraw_scheduled: bool,
    /// A question is on screen, waiting for its answer: notes wait in `held`.
    asking: bool,
    /// The lines (log messages, notes) that arrived while a question was on screen, shown
    /// once it is answered: written then, they would land on the line the user types on
    /// and push the prompt away. Bounded by [`MAX_HELD_LINES`] and [`MAX_HELD_BYTES`].
    held: Vec<String>,
    held_bytes: usize,
    /// Lines that arrived past those bounds, said in one line at the answer.
    left_out: usize,
}

/// Where a [`Ui`] writes: this process's stderr, or (in tests) a buffer.
#[derive(Clone)]
enum Sink {
    Stderr,
    #[cfg(test)]
    Buffer(Arc<Mutex<Vec<u8>>>),
}

/// The stderr of one command. Cheap to clone.
#[derive(Clone)]
pub struct Ui {
    state: Arc<Mutex<State>>,
    tty: bool,
    quiet: bool,
    sink: Sink,
}

impl Ui {
    /// A UI on this process's stderr; `quiet` silences the server's log messages.
    pub fn new(quiet: bool) -> Self {
        Ui { state: Arc::default(), tty: std::io::stderr().is_terminal(), quiet, sink: Sink::Stderr }
    }

    /// A UI that writes into a buffer, as a terminal would show it (tests).
    #[cfg(test)]
    pub fn buffered() -> (Self, Arc<Mutex<Vec<u8>>>) {
        let buffer = Arc::new(Mutex::new(Vec::new()));
        (Ui { state: Arc::default(), tty: true, quiet: false, sink: Sink::Buffer(buffer.clone()) }, buffer)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Writes `f`'s text to the sink, flushed (called with the state locked, so that
    /// writers do not tear each other's lines).
    fn write(&self, f: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) {
        let _ = match &self.sink {
            Sink::Stderr => {
                let mut err = std::io::stderr().lock();
                f(&mut err).and_then(|()| err.flush())
            }
            #[cfg(test)]
            Sink::Buffer(buffer) => f(&mut *buffer.lock().unwrap_or_else(|e| e.into_inner())),
        };
    }

    /// Writes a line to stderr (erasing and redrawing the bar around it). While a question
    /// is on screen the line waits for its answer (see [`State::held`]).
    pub fn note(&self, line: &str) {
        let mut state = self.lock();
        if state.asking {
            let line = visible(line).into_owned();
            let fits = state.held.len() < MAX_HELD_LINES && state.held_bytes + line.len() <= MAX_HELD_BYTES;
            match fits {
                true => {
                    state.held_bytes += line.len();
                    state.held.push(line);
                }
                false => state.left_out += 1,
            }
            return;
        }
        self.write(|err| {
            if state.bar.is_some() {
                write!(err, "\r\x1b[2K")?;
            }
            writeln!(err, "{}", visible(line))?;
            if let Some(bar) = &state.bar {
                write!(err, "{bar}")?;
            }
            Ok(())
        });
    }

    /// Shows a server log message.
    pub fn log(&self, params: &LoggingMessageNotificationParams) {
        if self.quiet {
            return;
        }
        let level = serde_json::to_value(params.level).ok().and_then(|v| v.as_str().map(str::to_owned));
        let level = level.unwrap_or_else(|| "log".to_owned());
        let data = log_text(&params.data);
        let line = match &params.logger {
            Some(logger) => format!("[{level}] {logger}: {data}"),
            None => format!("[{level}] {data}"),
        };
        self.note(&line);
    }

    /// Shows a progress update: a bar on a terminal, else a plain line
    /// (`progress: 3/10 (30%) message`) that a log file or a pipe can keep. While a
    /// question is on screen no bar is drawn (it would erase the line the user types on);
    /// the next update after the answer draws it. The bar is drawn at most every
    /// [`REDRAW_EVERY`]; an update that comes sooner is drawn when the time is up (by a
    /// task on the current runtime), unless a later one replaces it.
    pub fn progress(&self, update: ProgressUpdate) {
        if !self.tty {
            self.note(&format!("progress: {}", plain_progress(&update)));
            return;
        }
        let wait = self.progress_at(update, Instant::now());
        if let (Some(wait), Ok(runtime)) = (wait, tokio::runtime::Handle::try_current()) {
            let ui = self.clone();
            runtime.spawn(async move {
                tokio::time::sleep(wait).await;
                ui.redraw_at(Instant::now());
            });
        }
    }

    /// [`Ui::progress`] on a terminal at `now`: draws the bar, or keeps the update for
    /// later and, when no redraw is scheduled yet, returns how long until it may be drawn
    /// (the caller schedules it: it is marked scheduled).
    fn progress_at(&self, update: ProgressUpdate, now: Instant) -> Option<Duration> {
        let mut state = self.lock();
        if state.asking {
            return None;
        }
        state.updates += 1;
        let since = state.drawn_at.map(|at| now.saturating_duration_since(at));
        match since {
            Some(since) if since < REDRAW_EVERY => {
                state.pending = Some(update);
                match std::mem::replace(&mut state.redraw_scheduled, true) {
                    true => None,
                    false => Some(REDRAW_EVERY - since),
                }
            }
            _ => {
                state.pending = None;
                self.draw(&mut state, &update, now);
                None
            }
        }
    }

    /// Draws the update kept for later, if any (a scheduled redraw, at `now`).
    fn redraw_at(&self, now: Instant) {
        let mut state = self.lock();
        state.redraw_scheduled = false;
        if state.asking {
            return;
        }
        if let Some(update) = state.pending.take() {
            self.draw(&mut state, &update, now);
        }
    }

    /// Draws `update` as the bar (with the state locked).
    fn draw(&self, state: &mut State, update: &ProgressUpdate, now: Instant) {
        let bar = render_bar(update, state.updates, terminal_width());
        self.write(|err| write!(err, "\r\x1b[2K{bar}"));
        state.bar = Some(bar);
        state.drawn_at = Some(now);
    }

    /// Marks a question as on screen (or answered: the lines that waited meanwhile are
    /// shown then, and how many were left out past the bounds).
    pub fn asking(&self, asking: bool) {
        let mut state = self.lock();
        state.asking = asking;
        if asking {
            return;
        }
        let held = std::mem::take(&mut state.held);
        let left_out = std::mem::take(&mut state.left_out);
        state.held_bytes = 0;
        if held.is_empty() && left_out == 0 {
            return;
        }
        self.write(|err| {
            if state.bar.is_some() {
                write!(err, "\r\x1b[2K")?;
            }
            for line in &held {
                writeln!(err, "{line}")?;
            }
            if left_out > 0 {
                writeln!(
                    err,
                    "mcpwire: {left_out} more lines came while the question was on screen (left out)"
                )?;
            }
            if let Some(bar) = &state.bar {
                write!(err, "{bar}")?;
            }
            Ok(())
        });
    }

    /// Erases the bar (before the result is printed, or before a question).
    pub fn clear(&self) {
        let mut state = self.lock();
        state.pending = None;
        if state.bar.take().is_some() {
            self.write(|err| write!(err, "\r\x1b[2K"));
        }
    }
}

/// Collapses whitespace runs (newlines included) into single spaces.
pub fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `text` with its control characters (other than newline and tab) written as `\u{..}`:
/// text from a server (log messages, progress, content, errors) must not reach a
/// terminal as escape sequences, which could retitle it, clear it or hide what it shows.
pub fn visible(text: &str) -> std::borrow::Cow<'_, str> {
    let hidden = |c: char| c.is_control() && c != '\n' && c != '\t';
    if !text.contains(hidden) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if hidden(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// A writer that passes on what it is given with its control characters made visible
/// ([`visible`]): the SDK's own log lines (`tracing`), which quote what a server sent (an
/// error without an id, a tool's name, a method a 2026 server should not have sent), and
/// the elicitation dialog, which shows the server's form.
///
/// Each write is taken as text on its own: the log formatter writes each line whole, and
/// `write!` writes whole string pieces.
pub struct Visible<W: Write>(pub W);

impl<W: Write> Write for Visible<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let text = String::from_utf8_lossy(buf);
        self.0.write_all(visible(&text).as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

/// A log message's data as a line: a string as it is; an object as its `message` (or
/// `msg`) followed by its other members as `key=value`; anything else as compact JSON.
///
/// Beside a message, an `extra` member is the fields of fastmcp's envelope (`{"msg":
/// TEXT, "extra": null | {FIELDS}}`, which every fastmcp server sends): its fields are
/// shown as the message's own, and a null one not at all.
pub fn log_text(data: &Value) -> String {
    let fields = match data {
        Value::String(s) => return s.clone(),
        Value::Object(fields) => fields,
        other => return other.to_string(),
    };
    let message =
        ["message", "msg"].iter().find_map(|k| fields.get(*k).and_then(Value::as_str).map(|m| (*k, m)));
    let mut parts: Vec<String> = message.iter().map(|(_, m)| m.to_string()).collect();
    for (key, value) in fields {
        if message.is_some_and(|(k, _)| k == key) {
            continue;
        }
        match (key.as_str(), value) {
            ("extra", Value::Null) if message.is_some() => {}
            ("extra", Value::Object(extra)) if message.is_some() => {
                parts.extend(extra.iter().map(|(key, value)| log_field(key, value)));
            }
            _ => parts.push(log_field(key, value)),
        }
    }
    parts.join(" ")
}

/// One member of a log message's data as `key=value`: a string of one word bare, any
/// other value as compact JSON.
fn log_field(key: &str, value: &Value) -> String {
    match value {
        Value::String(s) if !s.is_empty() && !s.contains(char::is_whitespace) => format!("{key}={s}"),
        other => format!("{key}={other}"),
    }
}

/// `3/10 (30%) message`, `7 message` without a total: one line per update (the
/// message's whitespace runs, newlines included, one space).
fn plain_progress(update: &ProgressUpdate) -> String {
    let mut line = match update.total {
        Some(total) if total > 0.0 => format!(
            "{}/{} ({:.0}%)",
            trim_number(update.progress),
            trim_number(total),
            (update.progress / total).clamp(0.0, 1.0) * 100.0
        ),
        _ => trim_number(update.progress),
    };
    if let Some(m) = update.message.as_deref().filter(|m| !m.is_empty()) {
        line.push(' ');
        line.push_str(&one_line(m));
    }
    line
}

fn terminal_width() -> usize {
    std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok()).filter(|w: &usize| *w >= 20).unwrap_or(80)
}

/// One line: `[=====>    ]  50%  message`, or a bouncing marker without a total; the
/// message's control characters shown as text ([`visible`]), its whitespace runs one space.
pub fn render_bar(update: &ProgressUpdate, tick: usize, width: usize) -> String {
    let head = match update.total {
        Some(total) if total > 0.0 => {
            let fraction = (update.progress / total).clamp(0.0, 1.0);
            let filled = (fraction * BAR_CELLS as f64).round() as usize;
            let mut cells = "=".repeat(filled);
            if filled < BAR_CELLS {
                cells.push('>');
                cells.push_str(&" ".repeat(BAR_CELLS - filled - 1));
            }
            format!("[{cells}] {:>3.0}%", fraction * 100.0)
        }
        _ => {
            let span = BAR_CELLS - 3;
            let step = tick % (2 * span);
            let at = if step < span { step } else { 2 * span - step };
            format!("[{}<=>{}] {}", " ".repeat(at), " ".repeat(span - at), trim_number(update.progress))
        }
    };
    // The message on the bar's one line, its control characters shown before it is cut
    // to the width: a newline or a long escape sequence would otherwise wrap the bar,
    // which `\r` and an erase no longer redraw in place.
    let line = match update.message.as_deref() {
        Some(m) if !m.is_empty() => format!("{head}  {}", one_line(&visible(m))),
        _ => head,
    };
    truncate(&line, width.saturating_sub(1))
}

fn trim_number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}

/// Cuts a line to `max` characters, ending with `…` when cut.
pub fn truncate(line: &str, max: usize) -> String {
    if split_after_chars(line, max).is_none() {
        return line.to_owned();
    }
    let (head, _) = split_after_chars(line, max.saturating_sub(1)).unwrap_or((line, ""));
    format!("{head}…")
}

/// `text` split after its first `n` characters, or `None` when it has no more than `n`:
/// the one place display code finds where to cut text, on a character boundary.
pub fn split_after_chars(text: &str, n: usize) -> Option<(&str, &str)> {
    text.char_indices().nth(n).map(|(cut, _)| text.split_at(cut))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn update(progress: f64, total: Option<f64>, message: Option<&str>) -> ProgressUpdate {
        ProgressUpdate { progress, total, message: message.map(str::to_owned) }
    }

    #[test]
    fn control_characters_are_shown_not_sent() {
        assert_eq!(visible("plain\ttext\n"), "plain\ttext\n");
        assert_eq!(visible("a\u{1b}]0;PWNED\u{7}b\u{1b}[2J"), "a\\u{1b}]0;PWNED\\u{7}b\\u{1b}[2J");
        assert_eq!(visible("\r\u{9b}31m"), "\\u{d}\\u{9b}31m");
    }

    #[test]
    fn draws_bars() {
        let half = render_bar(&update(50.0, Some(100.0), Some("halfway")), 1, 200);
        assert_eq!(half, format!("[{}>{}]  50%  halfway", "=".repeat(15), " ".repeat(14)));
        let full = render_bar(&update(3.0, Some(3.0), None), 1, 200);
        assert_eq!(full, format!("[{}] 100%", "=".repeat(30)));
        let open = render_bar(&update(7.0, None, None), 0, 200);
        assert!(open.starts_with("[<=>") && open.ends_with("] 7"), "{open}");
        assert!(render_bar(&update(1.0, Some(2.0), Some(&"x".repeat(300))), 1, 80).chars().count() <= 79);
    }

    /// A bar is one line no wider than the terminal, whatever the server's message holds
    /// (newlines, escape sequences), so that `\r` and an erase redraw it in place; a plain
    /// progress line is one line too.
    #[test]
    fn a_bar_stays_one_line_whatever_the_message() {
        let message = format!("a\nb\r\n{}\u{9b}2J", "\u{1b}[2J".repeat(40));
        for total in [Some(10.0), None] {
            let bar = render_bar(&update(1.0, total, Some(&message)), 1, 80);
            assert!(!bar.contains(|c: char| c.is_control()), "{bar:?}");
            assert!(bar.chars().count() <= 79, "{} characters: {bar}", bar.chars().count());
            assert!(bar.contains("a b\\u{d} \\u{1b}[2J"), "{bar}");
        }
        // Without a terminal: a line per update.
        assert_eq!(plain_progress(&update(3.0, Some(10.0), Some("a\nb\n"))), "3/10 (30%) a b");
    }

    /// A bar is not drawn while a question is on screen: on a terminal, drawing it
    /// erases the line the user is typing on, its prompt included.
    #[test]
    fn no_bar_is_drawn_over_a_question() {
        let ui = Ui { state: Arc::default(), tty: true, quiet: false, sink: Sink::Stderr };
        ui.asking(true);
        ui.progress(update(1.0, Some(2.0), Some("half")));
        assert!(ui.lock().bar.is_none());
    }

    /// A server's log messages (and notes) that arrive while a question is on screen
    /// wait for its answer, in order, instead of landing on the line the user types on;
    /// past the bounds they are counted, and the count said.
    #[test]
    fn lines_wait_while_a_question_is_on_screen_within_bounds() {
        let (ui, buffer) = Ui::buffered();
        let written = || String::from_utf8(std::mem::take(&mut *buffer.lock().unwrap())).unwrap();
        let log = |data: &str| {
            let params = serde_json::json!({ "level": "info", "data": data });
            ui.log(&serde_json::from_value(params).unwrap());
        };
        ui.asking(true);
        log("first");
        ui.note("second");
        assert_eq!(written(), "", "nothing is written while the question is on screen");
        ui.asking(false);
        assert_eq!(written(), "[info] first\nsecond\n");
        log("after");
        assert_eq!(written(), "[info] after\n");

        ui.asking(true);
        for n in 0..MAX_HELD_LINES + 3 {
            log(&format!("line {n}"));
        }
        log(&"x".repeat(MAX_HELD_BYTES));
        ui.asking(false);
        let text = written();
        assert_eq!(text.lines().count(), MAX_HELD_LINES + 1, "{}", &text[text.len() - 200..]);
        assert!(text.starts_with("[info] line 0\n"));
        assert!(text.ends_with("mcpwire: 4 more lines came while the question was on screen (left out)\n"));
        ui.asking(true);
        log(&"y".repeat(MAX_HELD_BYTES + 1));
        ui.asking(false);
        assert_eq!(written(), "mcpwire: 1 more lines came while the question was on screen (left out)\n");
    }

    /// A hundred thousand updates at once draw the bar once; the latest is kept and drawn
    /// when the time is up (the last one too), an update after the time at once. Time is
    /// given, not waited for.
    #[test]
    fn bars_are_redrawn_at_most_every_interval_keeping_the_latest() {
        let (ui, buffer) = Ui::buffered();
        let written = || String::from_utf8(std::mem::take(&mut *buffer.lock().unwrap())).unwrap();
        let draws = |text: &str| text.matches("\r\x1b[2K").count();
        let start = Instant::now();
        let step = |n: usize| update(n as f64, Some(200_000.0), Some(&format!("step {n}")));
        assert_eq!(ui.progress_at(step(0), start), None, "the first is drawn");
        for n in 1..100_000 {
            let wait = ui.progress_at(step(n), start + Duration::from_millis(1));
            if n == 1 {
                assert_eq!(wait, Some(REDRAW_EVERY - Duration::from_millis(1)));
            } else {
                assert_eq!(wait, None, "one redraw is scheduled at a time");
            }
        }
        let text = written();
        assert_eq!(draws(&text), 1, "{}", &text[..text.len().min(300)]);
        assert!(text.ends_with("step 0"), "{text}");
        ui.redraw_at(start + REDRAW_EVERY);
        let text = written();
        assert_eq!(draws(&text), 1);
        assert!(text.ends_with("step 99999"), "{text}");
        ui.redraw_at(start + REDRAW_EVERY);
        assert_eq!(written(), "", "nothing more to draw");
        assert_eq!(ui.progress_at(step(100_000), start + 2 * REDRAW_EVERY), None);
        assert!(written().ends_with("step 100000"));
        assert!(ui.progress_at(step(100_001), start + 2 * REDRAW_EVERY).is_some());
        ui.progress_at(update(200_000.0, Some(200_000.0), Some("done")), start + 2 * REDRAW_EVERY);
        assert_eq!(written(), "");
        ui.redraw_at(start + 3 * REDRAW_EVERY);
        let text = written();
        assert_eq!(draws(&text), 1);
        assert!(text.ends_with("done"), "the last update is drawn, not the one it replaced: {text}");
        // Erased before the result is printed, the bar is not drawn again by a redraw due.
        assert!(ui.progress_at(step(7), start + 3 * REDRAW_EVERY).is_some());
        ui.clear();
        written();
        ui.redraw_at(start + 4 * REDRAW_EVERY);
        assert_eq!(written(), "");
    }

    #[test]
    fn plain_lines_for_pipes() {
        assert_eq!(plain_progress(&update(3.0, Some(10.0), Some("copying"))), "3/10 (30%) copying");
        assert_eq!(plain_progress(&update(7.0, None, None)), "7");
        let data =
            serde_json::json!({ "message": "disk almost full", "free": "2 GB", "mount": "/", "pct": 97 });
        assert_eq!(log_text(&data), "disk almost full free=\"2 GB\" mount=/ pct=97");
        assert_eq!(log_text(&serde_json::json!("plain")), "plain");
        assert_eq!(log_text(&serde_json::json!([1, 2])), "[1,2]");
    }

    #[test]
    fn truncate_keeps_at_most_max_characters() {
        assert_eq!(truncate("abcdef", 6), "abcdef");
        assert_eq!(truncate("abcdef", 5), "abcd…");
        assert_eq!(truncate("éüé€x", 3), "éü…");
        assert_eq!(truncate("ab", 1), "…");
        assert_eq!(truncate("ab", 0), "…");
        assert_eq!(truncate("", 0), "");
    }
}
