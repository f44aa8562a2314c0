//! GTP's framing (GTP 2 draft, sections 2.2-2.4 and 3): reading bounded lines,
//! preprocessing them, splitting off the id and the command, and writing responses.

use std::io::{self, BufRead};

use crate::games::Player;

/// The longest command line read (bytes, newline excluded). A longer line is answered
/// with an error and skipped to its newline; no command of the protocol comes near it.
pub const MAX_LINE: usize = 64 * 1024;

/// One line of input as read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RawLine {
    /// A line of at most [`MAX_LINE`] bytes (without its newline).
    Line(Vec<u8>),
    /// A line over [`MAX_LINE`] bytes (or the bound given): skipped.
    TooLong,
}

/// Reads the next line from `input` without ever holding more than [`MAX_LINE`] bytes of
/// it; `None` at the end of the input. A last line without a newline counts.
///
/// # Errors
/// The reader's I/O error (interruptions are retried).
pub fn read_line<R: BufRead>(input: &mut R) -> io::Result<Option<RawLine>> {
    read_line_within(input, MAX_LINE)
}

/// [`read_line`] with another bound: lines over `max` bytes are [`RawLine::TooLong`].
///
/// # Errors
/// The reader's I/O error (interruptions are retried).
pub fn read_line_within<R: BufRead>(input: &mut R, max: usize) -> io::Result<Option<RawLine>> {
    let mut line = Vec::new();
    let mut too_long = false;
    let mut read_any = false;
    loop {
        let available = match input.fill_buf() {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(match (read_any, too_long) {
                (false, _) => None,
                (true, true) => Some(RawLine::TooLong),
                (true, false) => Some(RawLine::Line(line)),
            });
        }
        read_any = true;
        let (chunk, used, ended) = match available.iter().position(|&b| b == b'\n') {
            Some(i) => (&available[..i], i + 1, true),
            None => (available, available.len(), false),
        };
        if !too_long {
            if line.len() + chunk.len() > max {
                too_long = true;
                line = Vec::new();
            } else {
                line.extend_from_slice(chunk);
            }
        }
        input.consume(used);
        if ended {
            return Ok(Some(if too_long { RawLine::TooLong } else { RawLine::Line(line) }));
        }
    }
}

/// Preprocesses one line (section 3.1): control characters other than HT removed (CR
/// included), everything from `#` on removed, HT turned into a space. `None` for a line
/// left empty or blank, which gets no response. Bytes that are not UTF-8 become U+FFFD
/// (and so an error where they matter).
pub fn preprocess(line: &[u8]) -> Option<String> {
    let kept: Vec<u8> = line
        .iter()
        .copied()
        .take_while(|&b| b != b'#')
        .filter(|&b| b == b'\t' || (b >= 0x20 && b != 0x7f))
        .map(|b| if b == b'\t' { b' ' } else { b })
        .collect();
    if kept.iter().all(|&b| b == b' ') {
        return None;
    }
    Some(String::from_utf8_lossy(&kept).into_owned())
}

/// A command as sent: its optional id, its name and its arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandLine<'a> {
    /// The id (digits), echoed in the response.
    pub id: Option<&'a str>,
    /// The command name (`None` for a line with an id alone).
    pub name: Option<&'a str>,
    /// The arguments.
    pub args: Vec<&'a str>,
}

impl<'a> CommandLine<'a> {
    /// Splits a preprocessed line on spaces: an all-digit first token is the id.
    pub fn parse(line: &'a str) -> CommandLine<'a> {
        let mut tokens = line.split(' ').filter(|t| !t.is_empty()).peekable();
        let id = tokens.next_if(|t| t.bytes().all(|b| b.is_ascii_digit()));
        let name = tokens.next();
        CommandLine { id, name, args: tokens.collect() }
    }
}

/// A GTP colour: `b`, `black`, `w` or `white`, any case.
pub fn parse_colour(text: &str) -> Option<Player> {
    match text.to_ascii_lowercase().as_str() {
        "b" | "black" => Some(Player::One),
        "w" | "white" => Some(Player::Two),
        _ => None,
    }
}

/// A response (section 3.4): `=id result` or `?id message`, ended by a blank line. The
/// text must not hold a blank line of its own: blank lines are removed, as are control
/// characters other than the newline.
pub fn response(id: Option<&str>, result: Result<String, String>) -> String {
    let (mark, text) = match result {
        Ok(text) => ('=', text),
        Err(text) => ('?', text),
    };
    let clean: String = text.chars().filter(|&c| c == '\n' || !c.is_control()).collect();
    let body: Vec<&str> = clean.lines().filter(|l| !l.trim().is_empty()).collect();
    // A multi-line result (showboard) starts on the line after the mark.
    let sep = if clean.starts_with('\n') { "\n" } else { " " };
    format!("{mark}{}{sep}{}\n\n", id.unwrap_or(""), body.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preprocessing_follows_the_spec() {
        assert_eq!(preprocess(b"  # a comment"), None);
        assert_eq!(preprocess(b"\t \r"), None);
        assert_eq!(preprocess(b"play\tb d3 # move").as_deref(), Some("play b d3 "));
        assert_eq!(preprocess(b"na\x00me\r").as_deref(), Some("name"));
        assert_eq!(preprocess(b"\xff").as_deref(), Some("\u{fffd}"));
    }

    #[test]
    fn ids_are_split_off() {
        let c = CommandLine::parse("12  play b d3");
        assert_eq!((c.id, c.name, c.args), (Some("12"), Some("play"), vec!["b", "d3"]));
        let c = CommandLine::parse("12");
        assert_eq!((c.id, c.name), (Some("12"), None));
        assert_eq!(CommandLine::parse("12a name").name, Some("12a"));
    }

    #[test]
    fn responses_end_with_one_blank_line() {
        assert_eq!(response(Some("3"), Ok(String::new())), "=3 \n\n");
        assert_eq!(response(None, Err("illegal move".into())), "? illegal move\n\n");
        assert_eq!(response(None, Ok("\na\n\nb\n".into())), "=\na\nb\n\n");
    }

    #[test]
    fn long_lines_are_skipped_to_their_newline() {
        let mut input = vec![b'x'; MAX_LINE + 1];
        input.extend_from_slice(b"\nname\nlast");
        let mut reader = io::BufReader::with_capacity(100, &input[..]);
        assert_eq!(read_line(&mut reader).unwrap(), Some(RawLine::TooLong));
        assert_eq!(read_line(&mut reader).unwrap(), Some(RawLine::Line(b"name".to_vec())));
        assert_eq!(read_line(&mut reader).unwrap(), Some(RawLine::Line(b"last".to_vec())));
        assert_eq!(read_line(&mut reader).unwrap(), None);
        let exact = vec![b'y'; MAX_LINE];
        assert_eq!(read_line(&mut &exact[..]).unwrap(), Some(RawLine::Line(exact.clone())));
    }
}
