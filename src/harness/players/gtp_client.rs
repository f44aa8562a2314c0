//! A GTP client: drives another engine (GNU Go, KataGo, …) over its standard input and
//! output, one command at a time, with a timeout per response.
//!
//! # Examples
//! ```no_run
//! use std::time::Duration;
//! use parmcts::gtp::client::GtpClient;
//!
//! let mut gnugo = GtpClient::spawn("gnugo", &["--mode", "gtp"], Duration::from_secs(10))?;
//! gnugo.send("boardsize 9")?;
//! assert_eq!(gnugo.send("play black D4")?, "");
//! let stones = gnugo.send("list_stones black")?;
//! assert_eq!(stones, "D4");
//! # Ok::<(), parmcts::gtp::client::ClientError>(())
//! ```

use crate::games::Player;

/// GTP's name of a colour: `black` for the first player, `white` for the second.
pub fn colour_name(player: Player) -> &'static str {
    match player {
        Player::One => "black",
        Player::Two => "white",
    }
}

use std::fmt;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::Duration;

/// What went wrong talking to an engine.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ClientError {
    /// The program could not be started: its name and the system's reason.
    Spawn {
        /// The program.
        program: String,
        /// Why it did not start.
        reason: String,
    },
    /// The engine closed its output (exited) before answering the command.
    Exited {
        /// The command sent.
        command: String,
    },
    /// No complete response came within the timeout.
    TimedOut {
        /// The command sent.
        command: String,
        /// The timeout.
        timeout: Duration,
    },
    /// The engine answered `? message`.
    Failure {
        /// The command sent.
        command: String,
        /// The engine's message.
        message: String,
    },
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientError::Spawn { program, reason } => write!(f, "cannot start '{program}': {reason}"),
            ClientError::Exited { command } => write!(f, "the engine exited before answering '{command}'"),
            ClientError::TimedOut { command, timeout } => {
                write!(f, "no answer to '{command}' within {:.1} s", timeout.as_secs_f64())
            }
            ClientError::Failure { command, message } => write!(f, "'{command}' failed: {message}"),
        }
    }
}

impl std::error::Error for ClientError {}

/// A running engine spoken to over GTP. Dropping it sends `quit` and reaps the process.
#[derive(Debug)]
pub struct GtpClient {
    child: Child,
    stdin: Option<ChildStdin>,
    /// Lines of the engine's output, read by a thread (so that a read can time out).
    lines: Receiver<String>,
    timeout: Duration,
}

impl GtpClient {
    /// Starts `program` with `args`, waiting at most `timeout` for each response.
    ///
    /// # Errors
    /// [`ClientError::Spawn`] when the program cannot be started.
    pub fn spawn(program: &str, args: &[&str], timeout: Duration) -> Result<GtpClient, ClientError> {
        let spawn_error = |reason: String| ClientError::Spawn { program: program.to_string(), reason };
        let mut command = Command::new(program);
        command.args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null());
        // A process group of its own: a Ctrl-C at the terminal reaches the match, which
        // stops between moves and lets the engine quit, instead of killing the engine
        // mid-game (a forfeit).
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = command.spawn().map_err(|e| spawn_error(e.to_string()))?;
        let stdout = child.stdout.take().ok_or_else(|| spawn_error("no standard output".to_string()))?;
        let stdin = child.stdin.take();
        let (sender, lines) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        Ok(GtpClient { child, stdin, lines, timeout })
    }

    /// Sets the timeout for each later response.
    pub fn set_timeout(&mut self, timeout: Duration) {
        self.timeout = timeout;
    }

    /// Sends one command (a single line, no id) and returns the response's text: after
    /// `= `, up to the blank line that ends it, lines joined by `\n`, trimmed.
    ///
    /// # Errors
    /// [`ClientError::Failure`] for a `?` response, [`ClientError::Exited`] when the engine
    /// is gone, [`ClientError::TimedOut`] after the timeout.
    pub fn send(&mut self, command: &str) -> Result<String, ClientError> {
        let exited = || ClientError::Exited { command: command.to_string() };
        let stdin = self.stdin.as_mut().ok_or_else(exited)?;
        writeln!(stdin, "{command}").and_then(|()| stdin.flush()).map_err(|_| exited())?;
        let mut response: Option<(bool, Vec<String>)> = None;
        loop {
            let line = match self.lines.recv_timeout(self.timeout) {
                Ok(line) => line,
                Err(RecvTimeoutError::Timeout) => {
                    return Err(ClientError::TimedOut { command: command.to_string(), timeout: self.timeout })
                }
                Err(RecvTimeoutError::Disconnected) => return Err(exited()),
            };
            let line = line.trim_end_matches('\r');
            match &mut response {
                None if line.trim().is_empty() => {}
                None => {
                    let success = line.starts_with('=');
                    if !success && !line.starts_with('?') {
                        continue; // not a response (stray output before it)
                    }
                    response = Some((success, vec![line[1..].trim().to_string()]));
                }
                Some((success, text)) => {
                    if line.trim().is_empty() {
                        let text = text.join("\n").trim().to_string();
                        return if *success {
                            Ok(text)
                        } else {
                            Err(ClientError::Failure { command: command.to_string(), message: text })
                        };
                    }
                    text.push(line.to_string());
                }
            }
        }
    }
}

impl Drop for GtpClient {
    fn drop(&mut self) {
        if let Some(mut stdin) = self.stdin.take() {
            let _ = writeln!(stdin, "quit");
        }
        // A second for the engine to quit, then it is killed.
        for _ in 0..100 {
            if !matches!(self.child.try_wait(), Ok(None)) {
                return;
            }
            thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
