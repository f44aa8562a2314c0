//! An embedder's evaluator (`Search::set_evaluator`), asked one position at a time or in
//! batches (`eval-batch`): batches of every size up to the maximum, the same search as
//! the unbatched one where they must agree, failures rejected with the tree intact.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use parmcts::evaluator::{Batch, EvalError, Evaluator};
use parmcts::search::{Finished, SearchConfigBuilder, Select};
use parmcts::{ConnectFour, Game, Mode, NTupleNetwork, Search, SearchConfig, SearchError};

/// The shipped Connect Four network, counting what it is asked.
struct Counting {
    network: Arc<NTupleNetwork>,
    /// Batch sizes seen.
    sizes: Mutex<Vec<usize>>,
    /// Positions valued one at a time.
    single: AtomicUsize,
}

impl Counting {
    fn new() -> Arc<Counting> {
        let network = NTupleNetwork::shipped::<ConnectFour>().unwrap().unwrap();
        Arc::new(Counting { network, sizes: Mutex::new(Vec::new()), single: AtomicUsize::new(0) })
    }
}

impl Evaluator<ConnectFour> for Counting {
    fn value(&self, game: &ConnectFour) -> f32 {
        self.single.fetch_add(1, Ordering::Relaxed);
        Evaluator::<ConnectFour>::value(&*self.network, game)
    }

    fn priors(&self, game: &ConnectFour, moves: &[parmcts::Move], out: &mut [f32]) -> bool {
        Evaluator::<ConnectFour>::priors(&*self.network, game, moves, out)
    }

    fn evaluate(&self, batch: &mut Batch<ConnectFour>) -> Result<(), EvalError> {
        self.sizes.lock().unwrap().push(batch.len());
        for i in 0..batch.len() {
            let value = Evaluator::<ConnectFour>::value(&*self.network, batch.position(i));
            batch.set_value(i, value);
            if batch.wants_priors(i) {
                let (game, moves, out) = batch.entry_mut(i);
                assert!(Evaluator::<ConnectFour>::priors(&*self.network, game, moves, out));
            }
        }
        Ok(())
    }
}

fn config() -> SearchConfigBuilder {
    // No exact solver before the search: every position is searched.
    SearchConfig::builder().seed(5).solver(false).endgame(0).arena_nodes(1 << 20)
}

fn search_with(config: SearchConfig, evaluator: Arc<dyn Evaluator<ConnectFour>>) -> Search {
    let mut search = Search::new(config).unwrap();
    search.set_evaluator(evaluator);
    search
}

#[test]
fn one_walk_in_flight_in_batches_of_one_is_the_unbatched_search() {
    let root = ConnectFour::parse_position("4435").unwrap();
    let plain = config().playouts(4_000).lanes(1).build().unwrap();
    let batched = config().playouts(4_000).lanes(1).eval_batch(1).eval_in_flight(1).build().unwrap();
    let counting = Counting::new();
    let a = search_with(plain, counting.clone()).run(&root).unwrap();
    assert!(counting.single.load(Ordering::Relaxed) >= 3_900, "valued one at a time");
    let counting = Counting::new();
    let mut search = search_with(batched, counting.clone());
    let b = search.run(&root).unwrap();
    search.check_invariants().unwrap();
    let sizes = counting.sizes.lock().unwrap().clone();
    assert!(sizes.iter().all(|&n| n == 1) && sizes.len() >= 3_900, "{} batches", sizes.len());
    assert_eq!(b.batch_sizes[0] as usize, sizes.len());
    let visits = |r: &parmcts::SearchResult| r.children.iter().map(|c| (c.mv, c.visits)).collect::<Vec<_>>();
    assert_eq!(visits(&a), visits(&b), "the same tree");
    assert_eq!((a.playouts, b.playouts), (4_000, 4_000));
}

#[test]
fn batches_of_every_size_up_to_the_maximum_fill_and_spend_the_budget_exactly() {
    let root = ConnectFour::new();
    for (mode, threads, size, eval_threads) in [
        (Mode::Sequential, 1, 2, 1),
        (Mode::Sequential, 1, 3, 0),
        (Mode::TreeParallel, 2, 7, 1),
        (Mode::TreeParallel, 2, 64, 2),
        (Mode::TreeParallel, 3, 255, 1),
        (Mode::Sequential, 1, 1024, 1),
    ] {
        let config = config()
            .playouts(6_000)
            .mode(mode)
            .threads(threads)
            .eval_batch(size)
            .eval_in_flight(2 * size)
            .eval_threads(eval_threads)
            .eval_wait_us(100_000)
            .build()
            .unwrap();
        let counting = Counting::new();
        let mut search = search_with(config, counting.clone());
        let result = search.run(&root).unwrap();
        search.check_invariants().unwrap();
        let sizes = counting.sizes.lock().unwrap().clone();
        let case = format!("{mode:?} x{threads}, batch {size}");
        assert_eq!(result.playouts, 6_000, "{case}");
        assert!(sizes.iter().all(|&n| (1..=size as usize).contains(&n)), "{case}: {sizes:?}");
        assert_eq!(counting.single.load(Ordering::Relaxed), 0, "{case}: nothing valued alone");
        // Every walk but those ending on a finished game went through a batch.
        let evaluated: usize = sizes.iter().sum();
        assert!(evaluated > 5_000 && evaluated <= 6_000, "{case}: {evaluated}");
        // The result's histogram counts the same batches.
        assert_eq!(result.batch_sizes.len(), size as usize, "{case}");
        let counted: u64 = result.batch_sizes.iter().enumerate().map(|(i, n)| (i as u64 + 1) * n).sum();
        assert_eq!(counted as usize, evaluated, "{case}");
        // With twice the batch in flight, batches fill (the 100 ms wait never runs out
        // before every walk in flight is gathered).
        assert!(sizes.contains(&(size as usize)), "{case}: no full batch in {sizes:?}");
    }
}

#[test]
fn an_evaluators_priors_come_through_the_batches_and_find_the_win() {
    // The first player has three stones in column 1 and wins by playing it again.
    let root = ConnectFour::parse_position("121213").unwrap();
    for mode in [Mode::Sequential, Mode::TreeParallel] {
        let threads = if mode == Mode::Sequential { 1 } else { 2 };
        let config = config()
            .playouts(5_000)
            .mode(mode)
            .threads(threads)
            .select(Select::Puct)
            .prune(false)
            .eval_priors(true)
            .eval_batch(16)
            .build()
            .unwrap();
        let mut search = search_with(config, Counting::new());
        let result = search.run(&root).unwrap();
        search.check_invariants().unwrap();
        assert_eq!(root.format_move(result.best_move.unwrap()), "1", "{mode:?}");
        assert!(result.playouts == 5_000 && !result.batch_sizes.is_empty(), "{mode:?}: searched in batches");
    }
}

/// An evaluator that fails (or answers NaN) from its `after`-th batch on.
struct Failing {
    inner: Arc<Counting>,
    after: usize,
    calls: AtomicUsize,
    nan: bool,
}

impl Evaluator<ConnectFour> for Failing {
    fn value(&self, game: &ConnectFour) -> f32 {
        if self.calls.fetch_add(1, Ordering::Relaxed) >= self.after {
            return f32::NAN;
        }
        self.inner.value(game)
    }

    fn evaluate(&self, batch: &mut Batch<ConnectFour>) -> Result<(), EvalError> {
        if self.calls.fetch_add(1, Ordering::Relaxed) < self.after {
            return self.inner.evaluate(batch);
        }
        if self.nan {
            self.inner.evaluate(batch)?;
            batch.set_value(batch.len() - 1, f32::NAN);
            return Ok(());
        }
        Err(EvalError::Failed("device lost".to_string()))
    }
}

#[test]
fn a_failing_evaluator_stops_the_search_with_its_error_and_leaves_the_tree_whole() {
    let root = ConnectFour::new();
    for (batch, nan, threads) in [(0, true, 1), (0, true, 2), (8, false, 1), (8, true, 2), (32, false, 2)] {
        let mode = if threads == 1 { Mode::Sequential } else { Mode::TreeParallel };
        let mut builder = config().playouts(20_000).mode(mode).threads(threads).reuse(true);
        if batch > 0 {
            builder = builder.eval_batch(batch);
        }
        let failing = Arc::new(Failing { inner: Counting::new(), after: 200, calls: AtomicUsize::new(0), nan });
        let mut search = search_with(builder.build().unwrap(), failing);
        let case = format!("batch {batch}, nan {nan}, threads {threads}");
        match search.run(&root) {
            Err(SearchError::Evaluator(EvalError::BadValue { value, .. })) if nan => assert!(value.is_nan(), "{case}"),
            Err(SearchError::Evaluator(EvalError::Failed(why))) if !nan => assert_eq!(why, "device lost"),
            other => panic!("{case}: {other:?}"),
        }
        // Every walk backed up is in the tree, every failed one taken back.
        search.check_invariants().unwrap_or_else(|e| panic!("{case}: {e}"));
        // No search is lost: it goes on with a working evaluator, from the same tree.
        search.set_evaluator(Counting::new());
        let kept = search.reuse(&root, &root, 0);
        assert!(kept > 0, "{case}: the failed run's tree is kept");
        let result = search.run(&root).unwrap();
        assert_eq!((result.playouts, result.reused_nodes), (20_000, kept), "{case}");
        search.check_invariants().unwrap();
    }
}

#[test]
fn a_batched_search_is_watched_and_stopped_through_its_handle() {
    let config = config()
        .until_stopped(true)
        .mode(Mode::TreeParallel)
        .threads(2)
        .eval_batch(32)
        .select(Select::Puct)
        .eval_priors(true)
        .build()
        .unwrap();
    let handle = search_with(config, Counting::new()).start(ConnectFour::new()).unwrap();
    let until = std::time::Instant::now() + Duration::from_secs(20);
    let snapshot = loop {
        let snapshot = handle.snapshot();
        if snapshot.playouts >= 3_000 {
            break snapshot;
        }
        assert!(std::time::Instant::now() < until);
        std::thread::sleep(Duration::from_millis(2));
    };
    // The root's priors came from the evaluator, asked as a batch of one.
    let priors: f64 = snapshot.children.iter().map(|c| c.prior).sum();
    assert!((priors - 1.0).abs() < 0.01, "root priors sum to {priors}");
    let Finished { search, result } = handle.stop();
    let result = result.unwrap();
    assert!(result.playouts >= 3_000 && !result.batch_sizes.is_empty());
    search.check_invariants().unwrap();
}

#[test]
fn an_evaluator_is_for_one_game_and_batches_need_one() {
    let mut search = search_with(config().playouts(100).build().unwrap(), Counting::new());
    let err = search.run(&parmcts::TicTacToe::new()).unwrap_err();
    assert_eq!(err.to_string(), "eval: the evaluator set is for connect4, and the search is of tictactoe");
    search.clear_evaluator();
    assert!(search.run(&parmcts::TicTacToe::new()).is_ok());
    // Tic-tac-toe has no evaluator of its own.
    let mut search = Search::new(config().playouts(100).eval_batch(4).build().unwrap()).unwrap();
    let err = search.run(&parmcts::TicTacToe::new()).unwrap_err();
    assert!(err.to_string().contains("eval-batch needs an evaluator"), "{err}");
    for (builder, says) in [
        (config().playouts(1).eval_batch(1025), "eval-batch must be 0 to 1024 (got 1025)"),
        (config().playouts(1).eval_batch(8).eval_in_flight(0), "eval-in-flight must be 1 to 4096 (got 0)"),
        (config().playouts(1).eval_in_flight(8), "eval-in-flight=8 conflicts with eval-batch=0"),
        (config().playouts(1).eval_batch(8).mode(Mode::RootParallel).threads(2), "only modes seq and tree"),
        (config().playouts(1).eval_batch(8).eval_depth(1), "eval-depth=1"),
    ] {
        let err = builder.build().unwrap_err().to_string();
        assert!(err.contains(says), "{err}");
    }
}
