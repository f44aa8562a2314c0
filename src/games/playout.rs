//! Playout policies: how a game is played to the end from a leaf of the search tree.
//!
//! [`Playouts`] holds a game's playout hooks, all with defaults that serve every
//! [`Game`]: an embedder writes `impl Playouts for MyGame {}` and overrides a hook only
//! for speed (a faster [`Playouts::random_playout`]) or knowledge (move strengths for
//! progressive bias and biased playouts, a pruning rule, learned move features). The
//! shipped games override theirs beside their rules. [`PlayoutPolicy`] picks which
//! playout a search runs; [`roulette`], [`roulette_by`] and [`sample_weighted`] are the
//! draws the defaults use.
//!
//! This module depends on the rules ([`Game`]) only.

use rand_core::RngCore;

use super::{random_below, Game, LastGoodReplies, Move, Outcome, Player, Turn};

/// The most feature groups a game's moves may have ([`Playouts::FEATURE_GROUPS`]).
pub const MAX_FEATURE_GROUPS: usize = 5;

/// A game's playout hooks: move strengths, pruning, learned features and the playouts
/// themselves. Every item has a default built on [`Game`] alone.
pub trait Playouts: Game {
    /// The strength `f(m) > 0` of move `mv` here: the action-value function behind
    /// progressive bias (`P(m) = f(m) / Σ f`) and biased playouts (roulette wheel,
    /// `p(m) = f(m) / Σ f`). Neutral (1 for every move) by default, so a game need not
    /// implement it; games in this crate document theirs.
    #[inline]
    fn action_value(&self, _mv: Move) -> f32 {
        1.0
    }

    /// Plays moves drawn by [`Playouts::action_value`] (roulette wheel, linear in the number
    /// of moves, no allocation) until the game ends and returns the outcome.
    fn biased_playout<R: RngCore>(&mut self, rng: &mut R) -> Outcome {
        play_out(self, rng, |game, moves, rng| roulette(game, moves, rng))
    }

    /// The moves a player may choose from once the opponent has offered to end the
    /// game, where the rules would then count what the opponent would not concede (Go
    /// after a pass: Tromp-Taylor counts dead stones left on the board; `go/closing.rs`).
    /// A player picks the best of them by its search; a single one is played without
    /// searching. `None` (the default): no such rule, every legal move.
    fn closing_moves(&self) -> Option<Vec<Move>> {
        None
    }

    /// Win-first / block-first pruning: reorders `moves` (the legal moves here) so that
    /// the moves worth considering come first and returns how many they are. A move that
    /// wins at once: only it. Otherwise, when some but not all moves leave the opponent
    /// an immediate win: only the others (the blocks). Otherwise all. The default plays
    /// every move (and every reply, for the block test); games override it with
    /// something faster. Chance positions are never pruned.
    fn prune_moves(&self, moves: &mut [Move]) -> usize {
        let Turn::Player(me) = self.turn() else { return moves.len() };
        let wins_at_once = |game: &Self, mv: Move, player: Player| {
            let mut child = game.clone();
            child.play_unchecked(mv);
            child.outcome() == Some(Outcome::Win(player))
        };
        if let Some(i) = moves.iter().position(|&m| wins_at_once(self, m, me)) {
            moves.swap(0, i);
            return 1;
        }
        let mut safe = 0;
        for i in 0..moves.len() {
            let mut child = self.clone();
            child.play_unchecked(moves[i]);
            let threatened = match child.turn() {
                Turn::Player(opponent) if opponent != me => {
                    child.legal_moves().into_iter().any(|reply| wins_at_once(&child, reply, opponent))
                }
                _ => false,
            };
            if !threatened {
                moves.swap(safe, i);
                safe += 1;
            }
        }
        if safe == 0 {
            moves.len()
        } else {
            safe
        }
    }

    /// A playout under any [`PlayoutPolicy`] (the search's pruned playouts and RAVE's
    /// playouts), with every move a player makes added to `played` (RAVE's
    /// all-moves-as-first statistics). The default serves every game.
    fn recorded_playout<R: RngCore>(
        &mut self,
        rng: &mut R,
        policy: PlayoutPolicy,
        played: &mut MovesPlayed,
    ) -> Outcome {
        recorded_play_out(self, rng, policy, played)
    }

    /// The learned features of this game's moves, by name ([`Playouts::move_team`]); empty
    /// when the game has none. A weights file holds one gamma per feature.
    fn move_features() -> &'static [&'static str] {
        &[]
    }

    /// The game that learned weights of these features are written for
    /// ([`crate::weights::MoveWeights::game`]): games whose moves have the same features
    /// share one set (Go's board sizes: `go`). The game's own name by default.
    const FEATURES_OF: &'static str = Self::NAME;

    /// Whether the playouts play and learn last good replies when the policy has a table
    /// ([`PlayoutPolicy::replies`]); a search with `replies=on` refuses a game without.
    const LEARNS_REPLIES: bool = false;

    /// The points whose owner a finished playout's board tells ([`Playouts::final_owner`];
    /// a move's id below this is the point it is played on): what criticality counts
    /// ([`crate::games::Criticality`], `crit=K`). None by default; Go: its board's points.
    const OWNED_POINTS: usize = 0;

    /// The owner of `point` (below [`Playouts::OWNED_POINTS`]) on this finished playout's
    /// board, if any. Go: the Tromp-Taylor owner (a stone, or an empty point that reaches
    /// stones of one colour only as a neighbour).
    #[inline]
    fn final_owner(&self, _point: usize) -> Option<Player> {
        None
    }

    /// Whether the game is won by a margin of points that a player's target can be moved
    /// by ([`Playouts::move_target`]: Go's komi); a player with `dyn-komi=on` refuses a
    /// game without.
    const MOVABLE_TARGET: bool = false;

    /// How far a player's target may be moved here, in points ([`Playouts::move_target`]):
    /// 0 by default. Go: a quarter of the empty points, so that a moved target shrinks
    /// back to the rules' as the board fills.
    fn target_room(&self) -> f32 {
        0.0
    }

    /// Makes `player` need `points` more than the rules say to win (fewer where negative):
    /// what dynamic komi searches. Nothing by default.
    fn move_target(&mut self, _player: Player, _points: f32) {}

    /// How many features describe one move: Coulom's feature groups (2007, §2), each
    /// move having one feature of each group, its strength the product of their gammas.
    /// One by default ([`Playouts::move_feature`]); Go has five ([`crate::games::go`]).
    const FEATURE_GROUPS: usize = 1;

    /// The feature (an index into [`Playouts::move_features`]) of move `mv` here, for a
    /// game of one feature group: with learned gammas, a move's strength is its feature's
    /// gamma (Coulom 2007). `None`: strength 1.
    #[inline]
    fn move_feature(&self, _mv: Move) -> Option<usize> {
        None
    }

    /// The features of move `mv` here, one per group ([`Playouts::FEATURE_GROUPS`]),
    /// written to `team` (the "team" of Coulom's generalised Bradley-Terry model); `false`
    /// when the move has none, so it is left out of training. By default
    /// [`Playouts::move_feature`].
    #[inline]
    fn move_team(&self, mv: Move, team: &mut [usize]) -> bool {
        match self.move_feature(mv) {
            Some(feature) => {
                team[0] = feature;
                true
            }
            None => false,
        }
    }

    /// The strength of move `mv` here under learned `gammas`: the product of the gammas
    /// of its features ([`Playouts::move_team`]); a move without features (a pass, Go's
    /// filling of one's own eye) keeps its [`Playouts::action_value`].
    #[inline]
    fn learned_strength(&self, mv: Move, gammas: &[f32]) -> f32 {
        let mut team = [0usize; MAX_FEATURE_GROUPS];
        let team = &mut team[..Self::FEATURE_GROUPS.min(MAX_FEATURE_GROUPS)];
        if !self.move_team(mv, team) {
            return self.action_value(mv);
        }
        team.iter().map(|&f| gammas.get(f).copied().unwrap_or(1.0)).product()
    }

    /// A roulette-wheel playout with learned strengths: move `m` has strength
    /// [`Playouts::learned_strength`].
    fn learned_playout<R: RngCore>(&mut self, rng: &mut R, gammas: &[f32]) -> Outcome {
        let policy = PlayoutPolicy { biased: true, gammas: Some(gammas), ..PlayoutPolicy::default() };
        play_out(self, rng, |game, moves, rng| policy.pick(game, moves, rng))
    }

    /// `N` playouts under `policy` at once: lane `i` plays `games[i]` to the end with
    /// `rngs[i]`, exactly the game [`PlayoutPolicy::play_out`] plays from that generator
    /// state. The default plays the lanes one after the other. A game whose playout is one
    /// long chain of dependent steps overrides it to advance the lanes in turn, so that
    /// the core overlaps their chains (Othello: 1.62x the playouts per second with 2
    /// lanes); the search runs [`crate::search::SearchConfig::lanes`] playouts this way.
    fn playouts<R: RngCore, const N: usize>(
        games: &mut [Self; N],
        rngs: &mut [R; N],
        policy: PlayoutPolicy,
    ) -> [Outcome; N] {
        std::array::from_fn(|i| policy.play_out(&mut games[i], &mut rngs[i]))
    }

    /// Plays uniformly random moves until the game ends and returns the outcome.
    /// Games override this with a faster loop; the distribution must stay uniform over
    /// [`Game::legal_moves`] (chance positions: by [`Game::chance_weight`]).
    fn random_playout<R: RngCore>(&mut self, rng: &mut R) -> Outcome {
        play_out(self, rng, |_, moves, rng| moves[random_below(rng, moves.len() as u32) as usize])
    }
}

/// The playout loop behind the trait's default playouts: `pick` chooses among the legal
/// moves (it may reorder them) at players' turns; chance turns draw by
/// [`Game::chance_weight`].
fn play_out<G: Playouts, R: RngCore>(
    game: &mut G,
    rng: &mut R,
    pick: impl FnMut(&G, &mut [Move], &mut R) -> Move,
) -> Outcome {
    play_out_observed(game, rng, pick, |_, _| {})
}

/// [`play_out`], telling `on_move` every move a player makes.
#[inline(always)]
fn play_out_observed<G: Playouts, R: RngCore>(
    game: &mut G,
    rng: &mut R,
    mut pick: impl FnMut(&G, &mut [Move], &mut R) -> Move,
    mut on_move: impl FnMut(Player, Move),
) -> Outcome {
    loop {
        if let Some(outcome) = game.outcome() {
            return outcome;
        }
        let mut moves = game.legal_moves();
        let moves = moves.as_mut();
        let mv = match game.turn() {
            Turn::Player(player) => {
                let mv = pick(game, moves, rng);
                on_move(player, mv);
                mv
            }
            Turn::Chance => sample_weighted(game, moves, rng),
        };
        game.play_unchecked(mv);
    }
}

/// The largest weight of a learned class wheel, 2^24: 64 cells of it total 2^30, below
/// the 2^32 of a draw, and a gamma 10^6 times below the largest keeps two digits (at
/// 2^16, the Connect Four fit's gift at 1/460 of a plain cell weighed 1/74 of it).
const WHEEL_MAX: f32 = (1u32 << 24) as f32;

/// Learned per-class gammas as the integer weights of an exact class roulette wheel
/// (Connect Four's and Othello's bitboard playouts): the largest gamma maps to
/// [`WHEEL_MAX`] and every class to at least 1, so no class vanishes and a wheel of up
/// to 64 cells totals below 2^32. A missing gamma counts as 1.
pub(crate) fn integer_class_weights<const N: usize>(gammas: &[f32]) -> [u32; N] {
    let max = gammas.iter().copied().filter(|g| g.is_finite()).fold(0.0f32, f32::max);
    let scale = if max > 0.0 { WHEEL_MAX / max } else { 1.0 };
    std::array::from_fn(|class| ((gammas.get(class).copied().unwrap_or(1.0) * scale).round() as u32).max(1))
}

/// The body of [`Playouts::recorded_playout`]'s default, for overrides that keep it for some
/// settings.
pub(crate) fn recorded_play_out<G: Playouts, R: RngCore>(
    game: &mut G,
    rng: &mut R,
    policy: PlayoutPolicy,
    played: &mut MovesPlayed,
) -> Outcome {
    play_out_observed(
        game,
        rng,
        |game, moves, rng| policy.pick(game, moves, rng),
        |player, mv| played.insert(player, mv),
    )
}

/// How a playout picks its moves.
#[derive(Clone, Copy, Debug, Default)]
pub struct PlayoutPolicy<'a> {
    /// Roulette wheel over the moves' strengths instead of uniform.
    pub biased: bool,
    /// Win-first / block-first pruning ([`Playouts::prune_moves`]) at every ply.
    pub prune: bool,
    /// Learned strengths per move feature ([`Playouts::learned_strength`]); `None`: the game's
    /// own [`Playouts::action_value`].
    pub gammas: Option<&'a [f32]>,
    /// Last good replies with forgetting, played first where the game's playouts learn
    /// them (Go's heavy playouts); `None`: off.
    pub replies: Option<&'a LastGoodReplies>,
}

impl PlayoutPolicy<'_> {
    /// The strength of `mv` in `game` under this policy.
    #[inline]
    pub fn strength<G: Playouts>(&self, game: &G, mv: Move) -> f32 {
        match self.gammas {
            Some(gammas) => game.learned_strength(mv, gammas),
            None => game.action_value(mv),
        }
    }

    /// Plays `game` to the end under this policy with the game's fastest playout for it
    /// and returns the outcome.
    #[inline(always)]
    pub fn play_out<G: Playouts, R: RngCore>(&self, game: &mut G, rng: &mut R) -> Outcome {
        match (self.prune || self.replies.is_some(), self.biased, self.gammas) {
            (true, _, _) => game.recorded_playout(rng, *self, &mut MovesPlayed::default()),
            (false, true, Some(gammas)) => game.learned_playout(rng, gammas),
            (false, true, None) => game.biased_playout(rng),
            (false, false, _) => game.random_playout(rng),
        }
    }

    /// Picks a move among `moves` (reordering them when pruning).
    #[inline]
    pub fn pick<G: Playouts, R: RngCore>(&self, game: &G, moves: &mut [Move], rng: &mut R) -> Move {
        let count = if self.prune { game.prune_moves(moves) } else { moves.len() };
        let kept = &moves[..count];
        if self.biased {
            roulette_by(kept, rng, |m| self.strength(game, m))
        } else {
            kept[random_below(rng, kept.len() as u32) as usize]
        }
    }
}

/// The moves each player made during part of a game, as two sets of move ids below 512
/// (higher ids are not recorded; 19x19 Go and Hex need 362): what RAVE's
/// all-moves-as-first statistics need.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MovesPlayed {
    bits: [[u64; 8]; 2],
}

impl MovesPlayed {
    /// Empties both sets.
    #[inline]
    pub fn clear(&mut self) {
        *self = MovesPlayed::default();
    }

    /// The sets as 16 words (the first player's 8, then the second's), as a farm's ranks
    /// send them ([`MovesPlayed::from_words`]).
    pub fn to_words(&self) -> [u64; 16] {
        let mut words = [0; 16];
        words[..8].copy_from_slice(&self.bits[0]);
        words[8..].copy_from_slice(&self.bits[1]);
        words
    }

    /// The sets [`MovesPlayed::to_words`] wrote.
    pub fn from_words(words: &[u64; 16]) -> MovesPlayed {
        let mut bits = [[0; 8]; 2];
        bits[0].copy_from_slice(&words[..8]);
        bits[1].copy_from_slice(&words[8..]);
        MovesPlayed { bits }
    }

    /// Records that `player` played `mv`.
    #[inline]
    pub fn insert(&mut self, player: Player, mv: Move) {
        if let Some(word) = self.bits[player.index()].get_mut(mv.0 as usize / 64) {
            *word |= 1 << (mv.0 % 64);
        }
    }

    /// Whether `player` played `mv`.
    #[inline]
    pub fn contains(&self, player: Player, mv: Move) -> bool {
        self.bit(player, mv) != 0
    }

    /// 1 if `player` played `mv`, else 0: [`MovesPlayed::contains`] without a branch.
    #[inline]
    pub fn bit(&self, player: Player, mv: Move) -> u64 {
        let in_range = u64::from(mv.0 < 512);
        let word = self.bits[player.index()][(mv.0 as usize / 64) % 8];
        word >> (mv.0 % 64) & in_range
    }
}

/// Draws one of `moves` with probability `f(m) / Σ f` for `f` = [`Playouts::action_value`]
/// (uniform if the values do not sum to a positive finite number). `moves` must not be
/// empty.
pub fn roulette<G: Playouts, R: RngCore>(game: &G, moves: &[Move], rng: &mut R) -> Move {
    roulette_by(moves, rng, |m| game.action_value(m))
}

/// Draws one of `moves` (non-empty) with probability proportional to `value(m)` (negative
/// values count as 0; uniform if none is positive).
pub fn roulette_by<R: RngCore>(moves: &[Move], rng: &mut R, value: impl Fn(Move) -> f32) -> Move {
    // Values computed once (on the stack) when they fit; twice otherwise.
    const BUFFER: usize = 128;
    let mut values = [0f32; BUFFER];
    let buffered = moves.len() <= BUFFER;
    let mut total = 0.0;
    for (i, &m) in moves.iter().enumerate() {
        let v = value(m).max(0.0);
        if buffered {
            values[i] = v;
        }
        total += v;
    }
    if !(total > 0.0 && total.is_finite()) {
        return moves[random_below(rng, moves.len() as u32) as usize];
    }
    let mut x = (rng.next_u32() as f32 / 4_294_967_296.0) * total;
    for (i, &m) in moves.iter().enumerate() {
        x -= if buffered { values[i] } else { value(m).max(0.0) };
        if x < 0.0 {
            return m;
        }
    }
    // Rounding left a sliver past the last move: take the last with positive weight.
    *moves.iter().rev().find(|&&m| value(m) > 0.0).unwrap_or(&moves[moves.len() - 1])
}

/// Draws one of `moves` with probability proportional to [`Game::chance_weight`].
pub fn sample_weighted<G: Game, R: RngCore>(game: &G, moves: &[Move], rng: &mut R) -> Move {
    let total: f32 = moves.iter().map(|&m| game.chance_weight(m)).sum();
    let mut x = (rng.next_u32() as f32 / 4_294_967_296.0) * total;
    for &m in moves {
        x -= game.chance_weight(m);
        if x < 0.0 {
            return m;
        }
    }
    moves[moves.len() - 1]
}
