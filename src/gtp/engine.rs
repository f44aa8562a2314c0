//! The GTP engine: the commands, answered over any reader and writer ([`Engine::run`])
//! or one line at a time ([`Engine::respond`]).

use std::fmt;
use std::io::{self, BufRead, Write};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use super::analyze::{Board, Dialect, Request};
use super::args::{colour, count, expect_args, seconds};
pub use super::config::EngineConfig;
pub use super::error::GtpError;
use super::game::FinalStatus;
use super::protocol::{self, CommandLine, RawLine};
use super::session::{new_session, GenMove, GenMoveRules, Session};
use super::time::{move_budget, ByoYomi, Clock, TimeSettings, SAFETY_MARGIN};
use crate::games::{GameKind, Player};

/// The protocol version answered to `protocol_version`.
pub const PROTOCOL_VERSION: &str = "2";

/// The engine's name, answered to `name`.
pub const ENGINE_NAME: &str = "parmcts";

/// Every command the engine knows, in `list_commands` order.
pub const COMMANDS: &[&str] = &[
    "protocol_version",
    "name",
    "version",
    "known_command",
    "list_commands",
    "quit",
    "boardsize",
    "clear_board",
    "komi",
    "fixed_handicap",
    "place_free_handicap",
    "set_free_handicap",
    "play",
    "genmove",
    "reg_genmove",
    "undo",
    "showboard",
    "final_score",
    "final_status_list",
    "time_settings",
    "kgs-time_settings",
    "time_left",
    "hex-swap-rule",
    "loadsgf",
    "printsgf",
    "lz-analyze",
    "kata-analyze",
    "lz-genmove_analyze",
    "kata-genmove_analyze",
    "gogui-analyze_commands",
    "parmcts-visits",
    "parmcts-pv",
    "parmcts-ownership",
];

/// The longest wait for the first line of an analysis, whatever its interval: a GUI
/// shows the search at once (a first line at 100 ms came 101.8 ms after the command,
/// median on a loaded 2-vCPU machine).
pub const FIRST_REPORT: Duration = Duration::from_millis(50);

/// The largest SGF file `loadsgf` reads.
pub const MAX_SGF_BYTES: u64 = 4 << 20;

/// A GTP engine for one game kind: the session (the game in progress), the time
/// settings and both colours' clocks.
pub struct Engine {
    kind: GameKind,
    config: EngineConfig,
    session: Box<dyn Session>,
    time: TimeSettings,
    clocks: [Clock; 2],
    log: Option<Box<dyn Write + Send>>,
    quit: bool,
    /// The analysis streaming now (`lz-analyze`, `kata-analyze`), until the next command.
    stream: Option<Request>,
    /// The move whose search streams (`lz-genmove_analyze`): its player, budget and start.
    analysed_move: Option<(Player, GenMoveRules, Instant)>,
}

impl fmt::Debug for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Engine").field("kind", &self.kind).field("time", &self.time).finish()
    }
}

type Reply = Result<String, GtpError>;

/// What the command loop's input gives: a line (or its end, or an error), or nothing
/// within the wait asked for.
enum Arrival {
    Line(io::Result<Option<RawLine>>),
    Waited,
}

impl Engine {
    /// An engine playing `kind` with `config`.
    ///
    /// # Errors
    /// [`GtpError::UnsupportedGame`], [`GtpError::BadResign`], or [`GtpError::Search`] if
    /// the search memory cannot be set up.
    pub fn new(kind: GameKind, config: EngineConfig) -> Result<Engine, GtpError> {
        if !(0.0..1.0).contains(&config.resign_below) {
            return Err(GtpError::BadResign(config.resign_below));
        }
        let session = new_session(kind, None, &config)?;
        let time = TimeSettings::Unlimited;
        Ok(Engine {
            kind,
            config,
            session,
            time,
            clocks: [time.clock(); 2],
            log: None,
            quit: false,
            stream: None,
            analysed_move: None,
        })
    }

    /// Writes diagnostics (each command and each search's figures) to `log`.
    pub fn set_log(&mut self, log: Box<dyn Write + Send>) {
        self.log = Some(log);
    }

    /// Whether `quit` was received.
    pub fn has_quit(&self) -> bool {
        self.quit
    }

    /// Answers commands from `input` on `output` until `quit` or the end of the input,
    /// flushing after each response, reading each line when the previous response is
    /// written: an analysis (`lz-analyze`) then streams nothing, its response ending when
    /// the next line is read. [`Engine::serve`] streams it.
    ///
    /// # Errors
    /// An I/O error of either stream.
    pub fn run<R: BufRead, W: Write>(&mut self, mut input: R, output: W) -> io::Result<()> {
        self.drive(|_| Arrival::Line(protocol::read_line(&mut input)), output)
    }

    /// [`Engine::run`] with the input read on a thread of its own, so that an analysis
    /// streams its lines until the next command arrives (the engine's own loop on stdin).
    ///
    /// # Errors
    /// An I/O error of either stream.
    pub fn serve<R: BufRead + Send + 'static, W: Write>(&mut self, mut input: R, output: W) -> io::Result<()> {
        let (lines, arriving) = mpsc::channel();
        // Not joined: after `quit` it may still wait for a line that never comes.
        std::thread::spawn(move || loop {
            let line = protocol::read_line(&mut input);
            let end = !matches!(line, Ok(Some(_)));
            if lines.send(line).is_err() || end {
                return;
            }
        });
        let next = |wait: Option<Duration>| match wait {
            None => Arrival::Line(arriving.recv().unwrap_or(Ok(None))),
            Some(wait) => match arriving.recv_timeout(wait) {
                Ok(line) => Arrival::Line(line),
                Err(RecvTimeoutError::Timeout) => Arrival::Waited,
                Err(RecvTimeoutError::Disconnected) => Arrival::Line(Ok(None)),
            },
        };
        self.drive(next, output)
    }

    /// The command loop: `next(None)` waits for a line, `next(Some(d))` for at most `d`.
    fn drive<W: Write>(&mut self, mut next: impl FnMut(Option<Duration>) -> Arrival, mut output: W) -> io::Result<()> {
        let mut pending = None;
        while !self.quit {
            let line = match pending.take() {
                Some(line) => line,
                None => match next(None) {
                    Arrival::Line(line) => line,
                    Arrival::Waited => continue,
                },
            };
            let Some(line) = line? else { break };
            if let Some(text) = self.respond(&line) {
                output.write_all(text.as_bytes())?;
                output.flush()?;
            }
            if let Some(request) = self.stream {
                match self.analysed_move.take() {
                    Some(job) => self.stream_move(&request, job, &mut output)?,
                    None => pending = Some(self.stream_until_next(&request, &mut next, &mut output)?),
                }
            }
        }
        Ok(())
    }

    /// Streams the analysis of `request` on `output`, a line each interval (the first
    /// within [`FIRST_REPORT`]), until the next line arrives (returned); then ends the
    /// response with its empty line and stops the analysis.
    fn stream_until_next<W: Write>(
        &mut self,
        request: &Request,
        next: &mut impl FnMut(Option<Duration>) -> Arrival,
        output: &mut W,
    ) -> io::Result<io::Result<Option<RawLine>>> {
        let mut wait = request.interval.min(FIRST_REPORT);
        let line = loop {
            match next(Some(wait)) {
                Arrival::Line(line) => break line,
                Arrival::Waited => match self.session.analysis_line(request) {
                    Some(line) => {
                        output.write_all(line.as_bytes())?;
                        output.write_all(b"\n")?;
                        output.flush()?;
                        wait = request.interval;
                    }
                    // Nothing visited yet: look again soon.
                    None => wait = wait.min(Duration::from_millis(10)),
                },
            }
        };
        output.write_all(b"\n")?;
        output.flush()?;
        self.stream = None;
        self.session.end_analysis();
        Ok(line)
    }

    /// Streams the search of `job`'s move (`genmove_analyze`) on `output`, a line each
    /// interval, until its budget is spent; then writes `play MOVE` (or `play resign`)
    /// and the response's empty line. Commands that arrive meanwhile wait.
    fn stream_move<W: Write>(
        &mut self,
        request: &Request,
        (player, rules, start): (Player, GenMoveRules, Instant),
        output: &mut W,
    ) -> io::Result<()> {
        let mut wait = request.interval.min(FIRST_REPORT);
        let mut last = Instant::now();
        while !self.session.analysis_spent(&rules) {
            std::thread::sleep(Duration::from_millis(2));
            if last.elapsed() >= wait {
                if let Some(line) = self.session.analysis_line(request) {
                    output.write_all(line.as_bytes())?;
                    output.write_all(b"\n")?;
                    output.flush()?;
                    wait = request.interval;
                }
                last = Instant::now();
            }
        }
        self.stream = None;
        let answer = match self.session.finish_analysis_move(player, &rules) {
            Ok(GenMove::Move(text)) => format!("play {text}\n\n"),
            Ok(GenMove::Resign) => "play resign\n\n".to_string(),
            Err(e) => format!("{e}\n\n"),
        };
        if rules.commit {
            self.clocks[player.index()].spend(&self.time, start.elapsed());
        }
        output.write_all(answer.as_bytes())?;
        output.flush()
    }

    /// The response to one line, blank line included; `None` for a line that gets none
    /// (empty, blank or a comment).
    pub fn respond(&mut self, line: &RawLine) -> Option<String> {
        let RawLine::Line(bytes) = line else {
            return Some(protocol::response(None, Err(GtpError::LineTooLong.to_string())));
        };
        let text = protocol::preprocess(bytes)?;
        // A command ends the analysis streaming (a caller of `respond` has no stream).
        if self.stream.take().is_some() {
            self.session.end_analysis();
        }
        let command = CommandLine::parse(&text);
        self.note(&format!("<< {}", text.trim()));
        let reply = match command.name {
            Some(name) => self.execute(name, &command.args),
            None => Err(GtpError::Syntax("no command after the id".to_string())),
        };
        if reply.is_ok() && self.stream.is_some() {
            // The stream's lines follow, and its empty line when the next command comes.
            return Some(format!("={}\n", command.id.unwrap_or("")));
        }
        let reply = reply.map_err(|e| e.to_string());
        Some(protocol::response(command.id, reply))
    }

    fn note(&mut self, text: &str) {
        if let Some(log) = self.log.as_mut() {
            let _ = writeln!(log, "{text}");
        }
    }

    fn execute(&mut self, name: &str, args: &[&str]) -> Reply {
        let expect = |n: usize| expect_args(name, args, n);
        match name {
            "protocol_version" => expect(0).map(|_| PROTOCOL_VERSION.to_string()),
            "name" => expect(0).map(|_| ENGINE_NAME.to_string()),
            "version" => expect(0).map(|_| env!("CARGO_PKG_VERSION").to_string()),
            "known_command" => {
                expect(1)?;
                Ok(COMMANDS.contains(&args[0]).to_string())
            }
            "list_commands" => expect(0).map(|_| COMMANDS.join("\n")),
            "quit" => {
                self.quit = true;
                Ok(String::new())
            }
            // GTP gives one size; HexGui sends width and height (`boardsize 11 11`), if equal.
            "boardsize" => match args {
                [size] => self.boardsize(size),
                [width, height] if width == height => self.boardsize(width),
                [width, height] => Err(GtpError::Syntax(format!(
                    "boardsize {width} {height}: only square boards (one size, or two equal)"
                ))),
                _ => expect(1).map(|_| String::new()),
            },
            "clear_board" => {
                expect(0)?;
                self.session.clear();
                self.clocks = [self.time.clock(); 2];
                Ok(String::new())
            }
            "komi" => self.komi(args),
            "fixed_handicap" | "place_free_handicap" | "set_free_handicap" => {
                super::handicap::command(&mut *self.session, name, args)
            }
            "play" => {
                expect(2)?;
                let player = colour(args[0])?;
                self.session.play(player, args[1]).map(|_| String::new())
            }
            "genmove" | "reg_genmove" => {
                expect(1)?;
                let player = colour(args[0])?;
                self.genmove(player, name == "genmove")
            }
            "undo" => {
                expect(0)?;
                self.session.undo().map(|_| String::new())
            }
            "showboard" => expect(0).map(|_| format!("\n{}", self.session.showboard())),
            "final_score" => expect(0).map(|_| self.session.final_score()),
            "final_status_list" => {
                expect(1)?;
                let status = FinalStatus::parse(args[0])
                    .ok_or_else(|| GtpError::Syntax(format!("status '{}' (expected alive, dead or seki)", args[0])))?;
                Ok(self.session.final_status_list(status).join(" "))
            }
            "time_settings" => {
                expect(3)?;
                let settings = TimeSettings::from_gtp(seconds(args[0])?, seconds(args[1])?, count(args[2])?);
                self.set_time(settings)
            }
            "kgs-time_settings" => self.kgs_time_settings(args),
            "time_left" => self.time_left(args),
            "hex-swap-rule" => self.hex_swap_rule(args),
            "loadsgf" => self.loadsgf_command(args),
            "printsgf" => expect(0).map(|_| self.session.record().trim_end().to_string()),
            "gogui-analyze_commands"
            | "parmcts-visits"
            | "parmcts-pv"
            | "parmcts-ownership"
            | "lz-analyze"
            | "kata-analyze"
            | "lz-genmove_analyze"
            | "kata-genmove_analyze" => self.analysis_command(name, args),
            _ => Err(GtpError::UnknownCommand(name.to_string())),
        }
    }

    /// The analysis commands: GoGui's boards, and the streams (`lz-analyze` and the
    /// others), which start here and run in [`Engine::serve`]'s loop.
    fn analysis_command(&mut self, name: &str, args: &[&str]) -> Reply {
        let expect = |n: usize| expect_args(name, args, n);
        match name {
            "gogui-analyze_commands" => {
                expect(0)?;
                Ok(super::analyze::gogui_commands(self.session.has_ownership()))
            }
            "parmcts-visits" | "parmcts-pv" | "parmcts-ownership" => {
                expect(0)?;
                let board = Board::of(name).ok_or_else(|| GtpError::UnknownCommand(name.to_string()))?;
                if board != Board::Ownership {
                    // The position's search, at the move's budget, not played.
                    self.genmove(self.session.to_move(), false)?;
                }
                Ok(self.session.gfx(board))
            }
            "lz-analyze" | "kata-analyze" | "lz-genmove_analyze" | "kata-genmove_analyze" => {
                let dialect = if name.starts_with("lz-") { Dialect::Lz } else { Dialect::Kata };
                let request = Request::parse(dialect, args)?;
                self.session.analyze(request.player)?;
                if name.ends_with("genmove_analyze") {
                    // The colour asked for, else the side to move (which `analyze` kept).
                    let player = request.player.unwrap_or(self.session.to_move());
                    self.analysed_move = Some((player, self.move_rules(player, true), Instant::now()));
                }
                self.stream = Some(request);
                Ok(String::new())
            }
            _ => Err(GtpError::UnknownCommand(name.to_string())),
        }
    }

    /// `komi K`.
    fn komi(&mut self, args: &[&str]) -> Reply {
        expect_args("komi", args, 1)?;
        let komi = args[0].parse::<f32>().ok().filter(|k| k.is_finite());
        let komi = komi.ok_or_else(|| GtpError::Syntax(format!("komi '{}' is not a number", args[0])))?;
        self.session.set_komi(komi);
        Ok(String::new())
    }

    /// `time_left COLOUR SECONDS STONES`.
    fn time_left(&mut self, args: &[&str]) -> Reply {
        expect_args("time_left", args, 3)?;
        let player = colour(args[0])?;
        let (time, stones) = (seconds(args[1])?, count(args[2])?);
        self.clocks[player.index()].set_left(&self.time, time, stones);
        Ok(String::new())
    }

    /// `hex-swap-rule on|off`.
    fn hex_swap_rule(&mut self, args: &[&str]) -> Reply {
        expect_args("hex-swap-rule", args, 1)?;
        let on = match args[0].to_ascii_lowercase().as_str() {
            "on" | "1" | "true" => true,
            "off" | "0" | "false" => false,
            _ => return Err(GtpError::Syntax(format!("swap rule '{}' (expected on or off)", args[0]))),
        };
        self.session.set_swap_rule(on).map(|_| String::new())
    }

    /// `loadsgf FILE [N]`: the arguments, then [`Engine::loadsgf`].
    fn loadsgf_command(&mut self, args: &[&str]) -> Reply {
        match args {
            [file] => self.loadsgf(file, None),
            [file, number] => {
                let number = number.parse::<usize>().ok().filter(|&n| n >= 1);
                let number = number.ok_or_else(|| GtpError::Syntax(format!("move number '{}'", args[1])))?;
                // GTP: the position before move `number`.
                self.loadsgf(file, Some(number - 1))
            }
            _ => Err(GtpError::Syntax("loadsgf takes a file and an optional move number".to_string())),
        }
    }

    /// `loadsgf FILE [N]`: the game of `FILE` (its size, komi, setup stones), replayed up
    /// to `moves` moves.
    fn loadsgf(&mut self, file: &str, moves: Option<usize>) -> Reply {
        let bad = |why: String| GtpError::BadSgf(format!("{file}: {why}"));
        // Only a regular file of bounded size: never a device or a pipe that could block.
        let meta = std::fs::metadata(file).map_err(|e| bad(e.to_string()))?;
        if !meta.is_file() || meta.len() > MAX_SGF_BYTES {
            return Err(bad(format!("not a regular file of at most {MAX_SGF_BYTES} bytes")));
        }
        let text = std::fs::read_to_string(file).map_err(|e| bad(e.to_string()))?;
        let game = super::sgf::read_record(&text).map_err(|e| bad(e.to_string()))?;
        let expected = self.session.sgf_game();
        if game.game != expected {
            return Err(bad(format!("a record of game GM[{}], not GM[{expected}]", game.game)));
        }
        if let Some(size) = game.size.filter(|&s| s != self.session.board_size()) {
            self.resize(size)?;
        }
        self.session.load(&game, moves)?;
        self.clocks = [self.time.clock(); 2];
        Ok(String::new())
    }

    fn boardsize(&mut self, size: &str) -> Reply {
        let size: u32 = size.parse().map_err(|_| GtpError::Syntax(format!("boardsize '{size}' is not a size")))?;
        self.resize(size)
    }

    /// A cleared board of `size` (`boardsize`, and `loadsgf` of a record of another size).
    fn resize(&mut self, size: u32) -> Reply {
        if size == self.session.board_size() {
            self.session.clear();
        } else {
            // Another size may be another game type: a new session, with the komi.
            let (komi, swap_rule) = (self.session.komi(), self.session.swap_rule());
            self.session = new_session(self.kind, Some(size), &self.config)?;
            self.session.set_komi(komi);
            if swap_rule {
                self.session.set_swap_rule(true)?;
            }
        }
        self.clocks = [self.time.clock(); 2];
        Ok(String::new())
    }

    fn set_time(&mut self, settings: TimeSettings) -> Reply {
        self.time = settings;
        self.clocks = [settings.clock(); 2];
        Ok(String::new())
    }

    /// `kgs-time_settings none | absolute MAIN | byoyomi MAIN PERIOD PERIODS |
    /// canadian MAIN PERIOD STONES`.
    fn kgs_time_settings(&mut self, args: &[&str]) -> Reply {
        let syntax = || GtpError::Syntax("expected none, absolute M, byoyomi M T P or canadian M T S".to_string());
        let Some((system, rest)) = args.split_first() else { return Err(syntax()) };
        let settings = match (system.to_ascii_lowercase().as_str(), rest) {
            ("none", []) => TimeSettings::Unlimited,
            ("absolute", [main]) => TimeSettings::Limited { main: seconds(main)?, byo_yomi: ByoYomi::None },
            ("byoyomi", [main, time, periods]) => {
                let (main, time, periods) = (seconds(main)?, seconds(time)?, count(periods)?);
                if time.is_zero() || periods == 0 {
                    TimeSettings::Limited { main, byo_yomi: ByoYomi::None }
                } else {
                    TimeSettings::Limited { main, byo_yomi: ByoYomi::Japanese { time, periods } }
                }
            }
            ("canadian", [main, time, stones]) => {
                TimeSettings::from_gtp(seconds(main)?, seconds(time)?, count(stones)?)
            }
            _ => return Err(syntax()),
        };
        let settings = match settings {
            TimeSettings::Limited { main, byo_yomi: ByoYomi::None } if main.is_zero() => TimeSettings::Unlimited,
            s => s,
        };
        self.set_time(settings)
    }

    /// The budget and rules of `player`'s next move: the clock's time, capped by the
    /// command line's playouts if given; else the command line's budget.
    fn move_rules(&self, player: Player, commit: bool) -> GenMoveRules {
        let clock = &self.clocks[player.index()];
        let search = &self.config.search;
        let (playouts, time) = match move_budget(&self.time, clock, self.session.moves_left(), SAFETY_MARGIN) {
            Some(budget) => (search.playouts(), Some(budget)),
            None => (search.playouts(), search.time()),
        };
        GenMoveRules { playouts, time, resign_below: self.config.resign_below, commit }
    }

    fn genmove(&mut self, player: Player, commit: bool) -> Reply {
        let start = Instant::now();
        let rules = self.move_rules(player, commit);
        let (playouts, time) = (rules.playouts, rules.time);
        let answer = self.session.genmove(player, rules)?;
        let elapsed = start.elapsed();
        if commit {
            self.clocks[player.index()].spend(&self.time, elapsed);
        }
        let ms = |d: Duration| format!("{:.1} ms", d.as_secs_f64() * 1e3);
        let budget = format!(
            "budget {} and {} playouts",
            time.map_or_else(|| "no time".to_string(), ms),
            playouts.map_or_else(|| "any".to_string(), |n| n.to_string())
        );
        let note = match self.session.last_search() {
            Some(r) => format!(
                "genmove: {budget}; last search {} playouts in {:.1} ms, best value {:.3}; answered in {:.1} ms",
                r.playouts,
                r.elapsed.as_secs_f64() * 1e3,
                r.children.iter().find(|c| Some(c.mv) == r.best_move).map_or(0.5, |c| c.value),
                elapsed.as_secs_f64() * 1e3
            ),
            None => format!("genmove: {budget}; no search"),
        };
        self.note(&note);
        Ok(match answer {
            GenMove::Move(text) => text,
            GenMove::Resign => "resign".to_string(),
        })
    }
}
