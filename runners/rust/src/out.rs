//! Protocol lines on standard output, one JSON object a line, flushed as
//! soon as written.

use std::io::Write;

use serde_json::Value as Json;

/// Writes one line.
pub fn line(v: &Json) {
    let mut s = serde_json::to_string(v).unwrap_or_else(|_| "{}".into());
    s.push('\n');
    let out = std::io::stdout();
    let mut l = out.lock();
    let _ = l.write_all(s.as_bytes());
    let _ = l.flush();
}

/// Standard error, prefixed.
pub fn log(msg: &str) {
    eprintln!("serbench-runner: {msg}");
}

/// A message on one line.
pub fn one_line(s: &str) -> String {
    let s: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if s.len() > 2000 {
        let mut end = 2000;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}…", &s[..end])
    } else {
        s
    }
}
