//! The rules on bitboards of any word size: a board's [`Shape`] and the [`Stones`] that change as moves are played.

use rand_core::RngCore;

use super::classes::{plain_roulette, prune_classified, roulette_of_classes, MoveClass};
use super::words::{winning_cells, Word};
use super::MAX_SIDE;
use crate::games::{random_below, Move, MoveList, Outcome, Player};

/// A board's geometry as the rules need it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Shape {
    pub(super) width: u32,
    pub(super) height: u32,
    /// Bits per column: the rows and the sentinel.
    pub(super) h1: u32,
    /// Cells a stone may ever fill: the game is drawn when they all are.
    pub(super) cells: u32,
}

impl Shape {
    /// Bits the board spans.
    #[inline]
    pub(super) fn bits(&self) -> u32 {
        self.width * self.h1
    }
}

/// What changes as moves are played, on bitboards of word `W` (`Wide` in the board;
/// the narrowest word that holds it during a playout).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct Stones<W> {
    /// Each player's stones (index 0 the first player), bit `col * (height + 1) + row`.
    pub(super) by_player: [W; 2],
    /// The next free row of each column (`height` when full).
    pub(super) next: [u8; MAX_SIDE as usize],
    /// Plies played.
    pub(super) plies: u8,
    /// Whether the last move made four in a row.
    pub(super) won: bool,
}

/// The cells where a stone would complete four in a row, for the side to move (`mine`)
/// and its opponent (`theirs`): sentinels and filled cells included, so only the bits of
/// empty cells on the board mean anything.
pub(super) struct Threats<W> {
    pub(super) mine: W,
    pub(super) theirs: W,
}

impl<W: Word> Stones<W> {
    /// The same position on another word (one that holds the board).
    #[inline]
    pub(super) fn convert<V: Word>(&self) -> Stones<V> {
        Stones {
            by_player: self.by_player.map(|stones| V::from_wide(stones.to_wide())),
            next: self.next,
            plies: self.plies,
            won: self.won,
        }
    }

    /// The side to move's index in `by_player`.
    #[inline(always)]
    pub(super) fn mover(&self) -> usize {
        usize::from(self.plies & 1)
    }

    #[inline(always)]
    pub(super) fn side_to_move(&self) -> Player {
        if self.plies & 1 == 0 {
            Player::One
        } else {
            Player::Two
        }
    }

    #[inline(always)]
    pub(super) fn outcome(&self, shape: Shape) -> Option<Outcome> {
        if self.won {
            Some(Outcome::Win(self.side_to_move().other()))
        } else if u32::from(self.plies) == shape.cells {
            Some(Outcome::Draw)
        } else {
            None
        }
    }

    /// Whether column `col` (on the board) is not full.
    #[inline(always)]
    pub(super) fn can_play(&self, shape: Shape, col: u32) -> bool {
        u32::from(self.next[col as usize]) < shape.height
    }

    /// The bit of the cell a stone dropped into `col` (not full) lands on.
    #[inline(always)]
    pub(super) fn landing(&self, shape: Shape, col: u32) -> u32 {
        col * shape.h1 + u32::from(self.next[col as usize])
    }

    /// The open columns, left to right (the game not over).
    #[inline]
    pub(super) fn legal_moves(&self, shape: Shape) -> MoveList<{ MAX_SIDE as usize }> {
        let mut moves = MoveList::new();
        for col in 0..shape.width {
            if self.can_play(shape, col) {
                moves.push(Move(col as u16));
            }
        }
        moves
    }

    /// Drops the side to move's stone into `col` (on the board, not full).
    #[inline(always)]
    pub(super) fn play(&mut self, shape: Shape, col: u32) {
        let cell = self.landing(shape, col);
        let stones = self.place(shape, col);
        // A four is new: the mover had none before (the game would be over).
        self.won = stones.has_four_through(cell, shape.h1);
    }

    /// [`Stones::play`] less setting `won`: the mover's stones with the new one.
    #[inline(always)]
    pub(super) fn place(&mut self, shape: Shape, col: u32) -> W {
        let me = self.mover();
        let stones = self.by_player[me] | W::bit(self.landing(shape, col));
        self.by_player[me] = stones;
        self.next[col as usize] += 1;
        self.plies += 1;
        stones
    }

    #[inline(always)]
    pub(super) fn threats(&self, shape: Shape) -> Threats<W> {
        let me = self.mover();
        Threats {
            mine: winning_cells(self.by_player[me], shape.h1),
            theirs: winning_cells(self.by_player[1 - me], shape.h1),
        }
    }

    /// The class of move `col` (not full) from the winning cells: its landing cell wins
    /// for the mover, else for the opponent (a block); else the cell above it wins for the
    /// opponent (a gift) or the mover (a spoil). The cells above the landing one are empty,
    /// so only the stones below and beside a cell decide whether it completes four; the
    /// blocked cell is never above a playable one.
    #[inline(always)]
    pub(super) fn class(&self, shape: Shape, threats: &Threats<W>, col: u32) -> MoveClass {
        let cell = self.landing(shape, col);
        let has_above = u32::from(self.next[col as usize]) + 1 < shape.height;
        if threats.mine.test(cell) {
            MoveClass::Win
        } else if threats.theirs.test(cell) {
            MoveClass::Block
        } else if has_above && threats.theirs.test(cell + 1) {
            MoveClass::Gift
        } else if has_above && threats.mine.test(cell + 1) {
            MoveClass::Spoil
        } else {
            MoveClass::Plain
        }
    }

    /// Uniform over the open columns by rejection (draw a column, redraw while it is
    /// full), no move list, to the end: [`Stones::play`]'s steps on locals, the side to
    /// move's stones and the opponent's swapped each ply, each column's landing bit and
    /// end (its sentinel's bit) kept as bit numbers, so no multiply or indexed stones.
    #[inline]
    pub(super) fn random_playout<R: RngCore>(&mut self, shape: Shape, rng: &mut R) -> Outcome {
        if let Some(outcome) = self.outcome(shape) {
            return outcome;
        }
        let me = self.mover();
        let (mut mine, mut theirs) = (self.by_player[me], self.by_player[1 - me]);
        let mut plies = u32::from(self.plies);
        let (mut landing, mut end) = ([0u8; MAX_SIDE as usize], [0u8; MAX_SIDE as usize]);
        for col in 0..shape.width {
            landing[col as usize] = self.landing(shape, col) as u8;
            end[col as usize] = (col * shape.h1 + shape.height) as u8;
        }
        let won = loop {
            if plies == shape.cells {
                break false;
            }
            let col = loop {
                let col = random_below(rng, shape.width) as usize;
                if landing[col] < end[col] {
                    break col;
                }
            };
            let cell = u32::from(landing[col]);
            let stones = mine | W::bit(cell);
            landing[col] += 1;
            plies += 1;
            (mine, theirs) = (theirs, stones);
            if stones.has_four_through(cell, shape.h1) {
                break true;
            }
        };
        let me = (plies & 1) as usize;
        self.by_player[me] = mine;
        self.by_player[1 - me] = theirs;
        for col in 0..shape.width {
            self.next[col as usize] = (u32::from(landing[col as usize]) - col * shape.h1) as u8;
        }
        self.plies = plies as u8;
        self.won = won;
        self.outcome(shape).unwrap_or(Outcome::Draw)
    }

    /// The trait's playout loop (`recorded_play_out`) with the move classes of each ply
    /// computed once from the winning cells: the same legal moves in the same order, the
    /// same pruning, the same draws from `rng`, so the same game. With `prune`,
    /// [`prune_classified`]; among the moves kept, with `biased` the roulette wheel of the
    /// action values, else uniform; `on_move` hears each (player, move).
    #[inline]
    pub(super) fn policy_playout<R: RngCore>(
        &mut self,
        shape: Shape,
        rng: &mut R,
        prune: bool,
        biased: bool,
        mut on_move: impl FnMut(Player, Move),
    ) -> Outcome {
        // The board's cells (no sentinels) and the landing cells, kept up to date.
        let (mut board, mut playable) = (W::ZERO, W::ZERO);
        for col in 0..shape.width {
            for row in 0..shape.height {
                board = board | W::bit(col * shape.h1 + row);
            }
            if self.can_play(shape, col) {
                playable = playable | W::bit(self.landing(shape, col));
            }
        }
        // The side to move's winning cells when the ply before computed them (as its
        // opponent's: its stones have not changed since).
        let mut known: Option<W> = None;
        loop {
            if let Some(outcome) = self.outcome(shape) {
                return outcome;
            }
            let mut moves = [Move(0); MAX_SIDE as usize];
            let mut n = 0;
            for col in 0..shape.width {
                if self.can_play(shape, col) {
                    moves[n] = Move(col as u16);
                    n += 1;
                }
            }
            let i = if prune || biased {
                let me = self.mover();
                let mine = known.unwrap_or_else(|| winning_cells(self.by_player[me], shape.h1) & board);
                let theirs = winning_cells(self.by_player[1 - me], shape.h1) & board;
                known = Some(theirs);
                // Most plies: no landing cell nor a cell above one is a winning cell, so
                // every move is plain (none pruned, all of value 1).
                let threatened = playable & (mine | theirs | ((mine | theirs) >> 1));
                if threatened == W::ZERO {
                    if biased {
                        plain_roulette(n, rng)
                    } else {
                        random_below(rng, n as u32) as usize
                    }
                } else {
                    let mut classes = [MoveClass::Plain; MAX_SIDE as usize];
                    let threats = Threats { mine, theirs };
                    for (class, mv) in classes.iter_mut().zip(&moves[..n]) {
                        *class = self.class(shape, &threats, u32::from(mv.0));
                    }
                    let kept = if prune { prune_classified(&mut moves[..n], &mut classes[..n]) } else { n };
                    if biased {
                        roulette_of_classes(&classes[..kept], rng)
                    } else {
                        random_below(rng, kept as u32) as usize
                    }
                }
            } else {
                random_below(rng, n as u32) as usize
            };
            let (mv, player) = (moves[i], self.side_to_move());
            on_move(player, mv);
            let cell = W::bit(self.landing(shape, u32::from(mv.0)));
            // The cell fills; the one above it opens, unless it is the sentinel.
            playable = playable ^ cell ^ ((cell << 1) & board);
            self.play(shape, u32::from(mv.0));
        }
    }
}
