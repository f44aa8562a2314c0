//! `parmcts train-weights`: fit move-feature gammas to a teacher's choices.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use clap::Args;

use parmcts::alphabeta::Evaluate;
use parmcts::games::go::Go9;
use parmcts::harness::report::TrainReport;
use parmcts::harness::training::{
    collect_decisions, evaluate_fit, fit_mm, hold_out, temperature_exponent, with_temperature, TrainingGames,
};
use parmcts::weights::MoveWeights;
use parmcts::SearchGame;
use parmcts::{ConnectFour, GameKind, Othello};

use crate::common::{at_least_one, game_parser, out, parse_spec, print_json, progress_bar, Failure};
use crate::interrupt;

#[derive(Args, Debug)]
pub struct TrainArgs {
    /// A game with move features (connect4, othello; go, 9x9).
    #[arg(long, value_parser = game_parser())]
    game: GameKind,
    /// Self-play games of the teacher.
    #[arg(long, default_value_t = 200)]
    games: usize,
    /// The teacher, as a player spec (`alphabeta:depth=5`, `mcts:playouts=20000`, ...).
    #[arg(long, default_value = "alphabeta:depth=5")]
    teacher: String,
    /// Random moves opening each game.
    #[arg(long = "random-plies", default_value_t = 6)]
    random_plies: u32,
    /// MM iterations.
    #[arg(long, default_value_t = 200)]
    iterations: usize,
    /// Softmax temperature of the written policy: gammas raised to 1/T (1 = the fit
    /// itself; 0.5, the default, played best in playouts).
    #[arg(long, default_value_t = 0.5)]
    temperature: f64,
    /// Seed of the openings.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Threads playing the teacher's games.
    #[arg(long, default_value_t = 2)]
    threads: usize,
    /// Where to write the weights file.
    #[arg(long, default_value = "weights.json")]
    out: String,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(args: &TrainArgs) -> Result<(), Failure> {
    match args.game {
        GameKind::Othello => run_game::<Othello>(args, &parmcts::games::othello::hand_set_gammas()),
        GameKind::ConnectFour => run_game::<ConnectFour>(args, &parmcts::games::connect4::hand_set_gammas()),
        GameKind::Go => run_game::<Go9>(args, &parmcts::games::go::patterns::hand_set_gammas()),
        other => {
            Err(Failure::flag("--game", format!("{other}: only connect4, othello and go have move features to train")))
        }
    }
}

fn run_game<G: Evaluate + SearchGame>(args: &TrainArgs, hand_set: &[f32]) -> Result<(), Failure> {
    for (flag, value) in [("--games", args.games), ("--threads", args.threads), ("--iterations", args.iterations)] {
        at_least_one(flag, value as u64)?;
    }
    // Checked before the teacher's games, not after them.
    temperature_exponent(args.temperature).map_err(|e| Failure::flag("--temperature", e))?;
    let teacher = parse_spec("--teacher", &args.teacher)?;
    let plan = TrainingGames {
        games: args.games,
        teacher,
        random_plies: args.random_plies,
        seed: args.seed,
        threads: args.threads,
    };
    let bar = progress_bar(
        Some(args.games as u64),
        "{bar:40} {pos}/{len} teacher games  [{elapsed_precise} < {eta_precise}]",
        false,
    );
    let start = Instant::now();
    let interrupt = interrupt::catch()?;
    let played = AtomicUsize::new(0);
    let count = || {
        bar.inc(1);
        played.fetch_add(1, Ordering::Relaxed);
    };
    let decisions = collect_decisions::<G>(&plan, &count, &interrupt)?;
    bar.finish_and_clear();
    let games = played.into_inner();
    if interrupt.requested() && decisions.is_empty() {
        eprintln!("interrupted before the teacher made a decision: nothing written");
        return Ok(());
    }
    // Every fifth decision is held out to compare the fitted and the hand-set gammas.
    let total = decisions.len();
    let (held_out, training) = hold_out(decisions, 5);
    let fitted = fit_mm(&training, G::move_features().len(), args.iterations);
    let gammas = with_temperature(&fitted, args.temperature)?;
    let hand: Vec<f64> = hand_set.iter().map(|&g| g as f64).collect();
    let (fitted_fit, learned_fit, hand_fit) =
        (evaluate_fit(&held_out, &fitted), evaluate_fit(&held_out, &gammas), evaluate_fit(&held_out, &hand));
    let source = source_line::<G>(args, interrupt.requested().then_some(games));
    let weights = MoveWeights::new::<G>(gammas.iter().map(|&g| g as f32).collect(), &source)?;
    weights.save(&args.out).map_err(|e| Failure::runtime(format!("--out: {e}")))?;
    let report = TrainReport {
        game: G::NAME,
        out: args.out.clone(),
        decisions: total,
        held_out: held_out.len(),
        features: G::move_features(),
        gammas: weights.gammas.clone(),
        hand_set: hand_set.to_vec(),
        temperature: args.temperature,
        fitted_gammas: fitted,
        fitted_log_likelihood: fitted_fit.log_likelihood,
        learned_log_likelihood: learned_fit.log_likelihood,
        learned_top_feature: learned_fit.top_feature,
        hand_set_log_likelihood: hand_fit.log_likelihood,
        hand_set_top_feature: hand_fit.top_feature,
        seconds: start.elapsed().as_secs_f64(),
        games,
        interrupted: interrupt.requested(),
    };
    if args.json {
        return print_json(&report);
    }
    print_text(&report, &args.teacher);
    Ok(())
}

/// The command line that made the weights, for their `source`; `interrupted_after` the
/// teacher games finished when Ctrl-C stopped the run.
fn source_line<G: SearchGame>(args: &TrainArgs, interrupted_after: Option<usize>) -> String {
    let mut source = format!(
        "parmcts train-weights --game {} --games {} --teacher {} --random-plies {} --iterations {} --seed {} --temperature {} --threads {}",
        G::NAME,
        args.games,
        // Quoted when it has spaces (`gtp:COMMAND LINE`), so the line replays as written.
        if args.teacher.contains(char::is_whitespace) { format!("\"{}\"", args.teacher) } else { args.teacher.clone() },
        args.random_plies,
        args.iterations,
        args.seed,
        args.temperature,
        args.threads
    );
    if let Some(games) = interrupted_after {
        source.push_str(&format!(" (interrupted after {games} games)"));
    }
    source
}

/// The most features the text report lists one by one (more: the strongest and the
/// weakest half of that).
const SHOWN_FEATURES: usize = 24;

fn print_text(r: &TrainReport, teacher: &str) {
    out!("{} decisions of the teacher {teacher}, {} held out; {:.1} s", r.decisions, r.held_out, r.seconds);
    if r.interrupted {
        out!("interrupted after {} teacher games finished: the fit is of the decisions recorded", r.games);
    }
    let written = format!("T = {}", r.temperature);
    out!("{:>11} {:>9} {:>9} {:>9}", "feature", "hand-set", "fitted", written);
    let row = |i: usize| {
        let (name, hand, fit, learned) = (r.features[i], r.hand_set[i], r.fitted_gammas[i], r.gammas[i]);
        out!("{name:>11} {hand:>9.3} {fit:>9.3} {learned:>9.3}");
    };
    if r.features.len() <= SHOWN_FEATURES {
        (0..r.features.len()).for_each(row);
    } else {
        // Many features (Go's 3x3 patterns): the strongest and the weakest fitted.
        let mut order: Vec<usize> = (0..r.features.len()).collect();
        order.sort_by(|&a, &b| r.fitted_gammas[b].total_cmp(&r.fitted_gammas[a]));
        let half = SHOWN_FEATURES / 2;
        order[..half].iter().copied().for_each(row);
        out!("{:>11} ({} more)", "...", r.features.len() - 2 * half);
        order[order.len() - half..].iter().copied().for_each(row);
    }
    out!(
        "held-out fit: log-likelihood per move {:.4} fitted, {:.4} written, {:.4} hand-set; top feature {:.1} % written vs {:.1} % hand-set",
        r.fitted_log_likelihood,
        r.learned_log_likelihood,
        r.hand_set_log_likelihood,
        100.0 * r.learned_top_feature,
        100.0 * r.hand_set_top_feature
    );
    out!("wrote {}", r.out);
}
