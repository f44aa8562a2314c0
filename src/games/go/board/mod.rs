//! The Go board: a padded mailbox with chains (circular stone lists, a representative
//! per chain, pseudo-liberty counts), an empty-point list and a Zobrist hash, all kept
//! incrementally. The same board serves the rules of the tree and the playouts.
//!
//! # Layout
//! A board of side `N` uses stride `W = N + 1`: point (row, col) (0-based, row 0 at the
//! bottom) is cell `(row + 1) * W + col + 1`. Cell `(row + 1) * W` is the border both to
//! the right of row `row - 1` and to the left of row `row`, and rows 0 and `N + 1` are
//! border rows, so every point's four neighbours are `±1` and `±W` and no index wraps.
//! Arrays are sized for 19x19 ([`CELLS`]); smaller boards use a prefix.
//!
//! # Chains and pseudo-liberties
//! A chain's pseudo-liberties count, with multiplicity, the (stone, empty neighbour)
//! pairs of its stones. A chain is captured exactly when the count is zero, which is
//! all the rules need; the count is cheap to keep (±1 per adjacency on each placement
//! and removal), as in libego and Fuego.

#[cfg(test)]
mod consistency;
mod scoring;

/// The largest side supported (GTP letters `A`..`T` without `I`).
pub const MAX_SIDE: usize = 19;
/// Cells of the largest padded board: `(19 + 2) * (19 + 1) + 1`.
pub(super) const CELLS: usize = (MAX_SIDE + 2) * (MAX_SIDE + 1) + 1;

/// Cell contents.
pub(super) const EMPTY: u8 = 0;
/// A black stone ([`crate::Player::One`]).
pub(super) const BLACK: u8 = 1;
/// A white stone ([`crate::Player::Two`]).
pub(super) const WHITE: u8 = 2;
/// Off the board.
pub(super) const BORDER: u8 = 3;

/// No point (no ko).
pub(super) const NO_POINT: u16 = 0;

/// The chain of every empty and border cell: cell 0 (a border cell on every board size),
/// whose pseudo-liberty count is scratch, so that updates need not test for a stone.
/// [`Board::place`] and the capture spread those updates over cells 0-3 (border cells
/// too: a board's first point is cell `N + 2 >= 4`), one per direction.
const NO_CHAIN: u16 = 0;

/// SplitMix64 (Steele, Lea & Flood 2014): the Zobrist keys' generator.
const fn splitmix(state: u64) -> u64 {
    let mut z = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE5_E4B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// `ZOBRIST[k][cell]`: the key of a black (`k = 0`) or white (`k = 1`) stone on `cell`, and
/// of the ko point `cell` (`k = 2`).
pub(super) static ZOBRIST: [[u64; CELLS]; 3] = {
    let mut keys = [[0u64; CELLS]; 3];
    let mut k = 0;
    while k < 3 {
        let mut c = 0;
        while c < CELLS {
            keys[k][c] = splitmix(((k * CELLS + c) as u64 + 1).wrapping_mul(0x2545_F491_4F6C_DD1D));
            c += 1;
        }
        k += 1;
    }
    keys
};

/// The colour of the other player.
#[inline(always)]
pub(super) const fn opponent(color: u8) -> u8 {
    color ^ 3
}

/// What one neighbour of each colour adds to a cell's [`Board::around`] count: 3-bit
/// fields for empty (bits 0-2), black (4-6) and white (8-10) neighbours; a border cell
/// counts as both colours, so that "every on-board neighbour is black" reads "four black".
const AROUND_UNIT: [u16; 4] = [1, 1 << 4, 1 << 8, 1 << 4 | 1 << 8];

/// The empty-neighbour field of an [`AROUND_UNIT`] count.
const EMPTY_NEIGHBOURS: u16 = 7;

/// Whether a cell holds a stone.
#[inline(always)]
pub(super) const fn is_stone(color: u8) -> bool {
    color == BLACK || color == WHITE
}

/// A board of side `N` (see the module doc).
#[derive(Clone)]
pub(super) struct Board<const N: usize> {
    /// [`EMPTY`], [`BLACK`], [`WHITE`] or [`BORDER`] per cell.
    pub(super) color: [u8; CELLS],
    /// The next stone of the chain (a circular list); meaningless on empty cells.
    next: [u16; CELLS],
    /// The chain's representative cell; [`NO_CHAIN`] on empty and border cells.
    head: [u16; CELLS],
    /// Per representative: the chain's pseudo-liberties.
    libs: [u16; CELLS],
    /// Per representative: the chain's stone count.
    size: [u16; CELLS],
    /// Per point: its neighbours by colour, [`AROUND_UNIT`]'s fields (the playouts' first
    /// tests, "an empty neighbour?" and "an eye?", in one load).
    around: [u16; CELLS],
    /// The empty points, in no order; `empty[..empties]`.
    pub(super) empty: [u16; MAX_SIDE * MAX_SIDE],
    /// Where each empty point sits in `empty`.
    empty_at: [u16; CELLS],
    /// How many points are empty.
    pub(super) empties: u16,
    /// The Zobrist hash of the stones.
    pub(super) hash: u64,
    /// Stones on the board per colour (index [`BLACK`] or [`WHITE`]).
    stones: [u16; 3],
}

/// What placing a stone did.
pub(super) struct Placed {
    /// Stones captured.
    pub(super) captured: u32,
    /// The new ko point ([`NO_POINT`] when none).
    pub(super) ko: u16,
}

impl<const N: usize> Board<N> {
    /// The stride `W = N + 1`.
    pub(super) const W: usize = N + 1;

    /// The empty board.
    pub(super) fn new() -> Self {
        // The scratch chains, cells 0-3, are border cells ([`NO_CHAIN`]).
        const { assert!(Self::W + 1 >= 4, "the first point is cell W + 1") };
        let mut board = Board {
            color: [BORDER; CELLS],
            next: [0; CELLS],
            head: [0; CELLS],
            libs: [0; CELLS],
            size: [0; CELLS],
            around: [0; CELLS],
            empty: [0; MAX_SIDE * MAX_SIDE],
            empty_at: [0; CELLS],
            empties: 0,
            hash: 0,
            stones: [0; 3],
        };
        for point in 0..N * N {
            let cell = Self::cell(point);
            board.color[cell] = EMPTY;
            board.empty_at[cell] = board.empties;
            board.empty[board.empties as usize] = cell as u16;
            board.empties += 1;
        }
        for point in 0..N * N {
            let cell = Self::cell(point);
            board.around[cell] = board.around_count(cell);
        }
        board
    }

    /// The cell of point `row * N + col`.
    #[inline(always)]
    pub(super) const fn cell(point: usize) -> usize {
        (point / N + 1) * Self::W + point % N + 1
    }

    /// The point (`row * N + col`) of an on-board cell.
    #[inline(always)]
    pub(super) const fn point(cell: usize) -> usize {
        (cell / Self::W - 1) * N + cell % Self::W - 1
    }

    /// The four neighbours of `cell`.
    #[inline(always)]
    pub(super) const fn neighbours(cell: usize) -> [usize; 4] {
        [cell - Self::W, cell - 1, cell + 1, cell + Self::W]
    }

    /// The four diagonal neighbours of `cell`.
    #[inline(always)]
    pub(super) const fn diagonals(cell: usize) -> [usize; 4] {
        [cell - Self::W - 1, cell - Self::W + 1, cell + Self::W - 1, cell + Self::W + 1]
    }

    /// The representative of the chain on `cell` (a stone).
    #[inline(always)]
    pub(super) fn chain(&self, cell: usize) -> usize {
        self.head[cell] as usize
    }

    /// Whether `cell` is on the first line with no stone within two points (rows and
    /// columns) of it.
    pub(super) fn on_empty_edge(&self, cell: usize) -> bool {
        let (row, col) = (cell / Self::W, cell % Self::W);
        let edge = |i: usize| i == 1 || i == N;
        if !edge(row) && !edge(col) {
            return false;
        }
        let near = |i: usize| i.saturating_sub(2).max(1)..=(i + 2).min(N);
        near(row).all(|r| near(col).all(|c| !is_stone(self.color[r * Self::W + c])))
    }

    /// How many of `cell`'s four neighbours are empty (one load: [`Board::around`]).
    #[inline(always)]
    pub(super) fn empty_neighbours(&self, cell: usize) -> u16 {
        self.around[cell] & EMPTY_NEIGHBOURS
    }

    /// [`Board::around`]'s count for `cell`, recomputed.
    fn around_count(&self, cell: usize) -> u16 {
        Self::neighbours(cell).iter().map(|&n| AROUND_UNIT[self.color[n] as usize]).sum()
    }

    /// The liberty of the chain on the stone `cell` when it has exactly one (the chain is
    /// in atari), by a walk of the chain that stops at a second liberty (pseudo-liberty
    /// counts cannot tell one liberty from several adjacencies of one point; they rule
    /// out atari when above four).
    pub(super) fn atari_liberty(&self, cell: usize) -> Option<usize> {
        // A chain's one liberty touches at most four of its stones: more pseudo-liberties
        // mean more liberties, with no walk.
        let mut unseen = self.libs[self.chain(cell)];
        if unseen > 4 {
            return None;
        }
        // The walk reads each stone's empty-neighbour count: two empty neighbours are two
        // liberties, none means nothing to look at, and once every pseudo-liberty has been
        // seen the rest of the chain has none.
        let mut liberty = None;
        let mut stone = cell;
        while unseen > 0 {
            match self.empty_neighbours(stone) {
                0 => {}
                1 => {
                    let n = Self::neighbours(stone).into_iter().find(|&n| self.color[n] == EMPTY);
                    if liberty.is_some() && liberty != n {
                        return None;
                    }
                    liberty = n;
                    unseen -= 1;
                }
                _ => return None,
            }
            stone = self.next[stone] as usize;
            if stone == cell {
                break;
            }
        }
        liberty
    }

    /// Whether the chain on the stone `cell` has exactly two liberties (a stone on
    /// either puts it in atari): a walk of the chain that stops at a third.
    pub(super) fn has_two_liberties(&self, cell: usize) -> bool {
        // Two liberties touch at most eight of the chain's stones.
        if self.libs[self.chain(cell)] > 8 {
            return false;
        }
        let mut seen = [usize::MAX; 2];
        let third = self.any_liberty(cell, |l| {
            if seen.contains(&l) {
                false
            } else if seen[0] == usize::MAX {
                seen[0] = l;
                false
            } else if seen[1] == usize::MAX {
                seen[1] = l;
                false
            } else {
                true
            }
        });
        !third && seen[1] != usize::MAX
    }

    /// Whether `f` holds for some empty neighbour of a stone of the chain on `cell`: calls
    /// it on each in turn (a liberty may come more than once) until it returns true.
    pub(super) fn any_liberty(&self, cell: usize, mut f: impl FnMut(usize) -> bool) -> bool {
        let mut stone = cell;
        loop {
            // Most stones of a chain have no empty neighbour: one load tells.
            if self.empty_neighbours(stone) != 0 {
                for n in Self::neighbours(stone) {
                    if self.color[n] == EMPTY && f(n) {
                        return true;
                    }
                }
            }
            stone = self.next[stone] as usize;
            if stone == cell {
                return false;
            }
        }
    }

    /// The 3x3 neighbourhood of `cell` as 16 bits, two per neighbour (the cell colours
    /// [`EMPTY`], [`BLACK`], [`WHITE`], [`BORDER`] are 0-3), in [`Board::AROUND`]'s order.
    #[inline(always)]
    pub(super) fn neighbourhood(&self, cell: usize) -> u16 {
        // A plain loop: as a fold, the compiler left it out of line in the heavy playout.
        let mut code = 0;
        for (i, &offset) in Self::AROUND.iter().enumerate() {
            code |= u16::from(self.color[cell.wrapping_add_signed(offset)]) << (2 * i);
        }
        code
    }

    /// The eight neighbours of a cell as offsets, row by row (`-W - 1` first), the order
    /// of [`Board::neighbourhood`]'s code.
    pub(super) const AROUND: [isize; 8] = {
        let w = Self::W as isize;
        [-w - 1, -w, -w + 1, -1, 1, w - 1, w, w + 1]
    };

    /// Whether `color` may place a stone on `cell` under the simple-ko rule (`ko`: the
    /// point it may not retake) with suicide forbidden.
    #[inline(always)]
    pub(super) fn is_legal(&self, cell: usize, color: u8, ko: u16) -> bool {
        if self.color[cell] != EMPTY || cell == ko as usize {
            return false;
        }
        // An empty neighbour makes it legal: one load of the neighbour counts.
        self.empty_neighbours(cell) != 0 || self.is_legal_crowded(cell, color)
    }

    /// Whether the light playout may play `cell` (an empty point) for `color`: legal
    /// under simple ko ([`Board::is_legal`]) and not one of `color`'s one-point eyes
    /// ([`Board::is_eye`]). One load of the point's neighbour counts serves both tests;
    /// an empty neighbour (most points, most of the game) settles both at once, since
    /// neither an eye nor the ko point has one.
    #[inline(always)]
    pub(super) fn is_playable(&self, cell: usize, color: u8, ko: u16) -> bool {
        let around = self.around[cell];
        if around & EMPTY_NEIGHBOURS != 0 {
            return true;
        }
        !(around >> (4 * color) & 7 == 4 && self.is_eye_shape(cell, color))
            && cell != ko as usize
            && self.is_legal_crowded(cell, color)
    }

    /// [`Board::is_legal`] for an empty point with no empty neighbour: a neighbouring
    /// chain of our own left with a liberty, or an opponent's left with none (captured),
    /// makes the move legal. A chain is left with none exactly when all its
    /// pseudo-liberties are adjacencies to `cell`. Border cells name the scratch chain
    /// [`NO_CHAIN`], which is skipped.
    #[inline(always)]
    fn is_legal_crowded(&self, cell: usize, color: u8) -> bool {
        let around = Self::neighbours(cell);
        let chains = around.map(|n| self.head[n]);
        // All four without a branch (they were two mispredictions a call), in a plain
        // loop: written as a fold, the compiler stopped inlining it into the playout.
        let mut legal = false;
        for i in 0..4 {
            let c = chains[i];
            let adjacencies = chains.iter().map(|&x| u16::from(x == c)).sum::<u16>();
            let own = self.color[around[i]] == color;
            legal |= (c != NO_CHAIN) & (own != (self.libs[c as usize] == adjacencies));
        }
        legal
    }

    /// The chain of each neighbour of `cell` (`usize::MAX` where there is no stone).
    #[inline(always)]
    fn neighbour_chains(&self, cell: usize) -> [usize; 4] {
        Self::neighbours(cell).map(|n| if is_stone(self.color[n]) { self.chain(n) } else { usize::MAX })
    }

    /// The pseudo-liberties of chain `chains[i]` once a stone fills the point whose
    /// neighbour chains are `chains`.
    #[inline(always)]
    fn libs_after(&self, chains: &[usize; 4], i: usize) -> u16 {
        let c = chains[i];
        self.libs[c] - chains.iter().filter(|&&x| x == c).count() as u16
    }

    /// Whether the empty `cell` is a one-point eye of `color`: every on-board neighbour
    /// is `color`, and the opponent holds fewer than two diagonals (none on the edge).
    /// The first half is one load: four of `color` in the point's neighbour counts.
    #[inline(always)]
    pub(super) fn is_eye(&self, cell: usize, color: u8) -> bool {
        self.around[cell] >> (4 * color) & 7 == 4 && self.is_eye_shape(cell, color)
    }

    /// The diagonal half of [`Board::is_eye`], for a point whose on-board neighbours are
    /// all `color`: the opponent holds fewer than two diagonals (none on the edge).
    #[inline(always)]
    fn is_eye_shape(&self, cell: usize, color: u8) -> bool {
        let opp = opponent(color);
        let diagonals = Self::diagonals(cell).map(|n| self.color[n]);
        let opponents: u8 = diagonals.iter().map(|&v| u8::from(v == opp)).sum();
        let edge = u8::from(diagonals.iter().fold(0, |acc, &v| acc | u8::from(v == BORDER)) != 0);
        opponents + edge < 2
    }

    /// Places a `color` stone on `cell`, which must be legal ([`Board::is_legal`]); captures.
    pub(super) fn place(&mut self, cell: usize, color: u8) -> Placed {
        self.remove_empty(cell);
        self.stones[color as usize] += 1;
        self.color[cell] = color;
        self.hash ^= ZOBRIST[color as usize - 1][cell];
        let around = Self::neighbours(cell);
        let unit = AROUND_UNIT[color as usize].wrapping_sub(AROUND_UNIT[EMPTY as usize]);
        for n in around {
            self.around[n] = self.around[n].wrapping_add(unit);
        }
        let stones = around.map(|n| self.color[n]);
        // Empty and border neighbours name scratch chains, whose counts mean nothing:
        // one per direction ([`NO_CHAIN`]'s note), so that the four updates below do not
        // wait on each other through one scratch count (+1.5 % light playouts).
        let chains: [usize; 4] = std::array::from_fn(|i| self.chain(around[i]).max(i));
        // Branch-free: every neighbour's chain loses a liberty.
        for c in chains {
            self.libs[c] = self.libs[c].wrapping_sub(1);
        }
        // Which neighbours are ours and which are opponents left with no liberty, as bit
        // masks without a branch: the colours around a playout's move are random, and a
        // branch per neighbour cost two mispredictions a move.
        let opp = opponent(color);
        let (mut ours, mut dead) = (0u32, 0u32);
        for i in 0..4 {
            ours |= u32::from(stones[i] == color) << i;
            dead |= u32::from((stones[i] == opp) & (self.libs[chains[i]] == 0)) << i;
        }
        // The stone joins the chain of its first own neighbour, or starts its own (the
        // fifth entry), the same writes either way: no branch and no walk (a lone stone
        // is spliced into the circular list).
        let join = [chains[0], chains[1], chains[2], chains[3], cell][ours.trailing_zeros().min(4) as usize];
        self.head[cell] = join as u16;
        (self.next[cell], self.libs[cell], self.size[cell]) = (cell as u16, 0, 0);
        (self.next[cell], self.next[join]) = (self.next[join], cell as u16);
        self.libs[join] += self.empty_neighbours(cell);
        self.size[join] += 1;
        ours &= ours.wrapping_sub(1);
        while ours != 0 {
            self.merge(cell, around[ours.trailing_zeros() as usize]);
            ours &= ours - 1;
        }
        let (captured, ko) = if dead == 0 { (0, NO_POINT) } else { self.capture(&around, dead, opp) };
        let own = self.chain(cell);
        let is_ko = captured == 1 && self.size[own] == 1 && self.libs[own] == 1;
        Placed { captured, ko: if is_ko { ko } else { NO_POINT } }
    }

    /// Removes the opponent's chains on the neighbours `around[i]` of a new stone for
    /// each bit `i` of `dead`; returns the stones removed and the last single stone's
    /// cell (the ko point if the new stone took one stone).
    #[cold]
    fn capture(&mut self, around: &[usize; 4], mut dead: u32, opp: u8) -> (u32, u16) {
        let (mut captured, mut ko) = (0, NO_POINT);
        while dead != 0 {
            let n = around[dead.trailing_zeros() as usize];
            dead &= dead - 1;
            // Two neighbours may hold one chain: the second finds its stone gone.
            if self.color[n] == opp {
                let removed = self.remove_chain(n);
                if removed == 1 {
                    ko = n as u16;
                }
                captured += removed;
            }
        }
        (captured, ko)
    }

    /// Merges the chains of the stones `a` and `b` (same colour), the smaller into the larger.
    fn merge(&mut self, a: usize, b: usize) {
        let (mut big, mut small) = (self.chain(a), self.chain(b));
        if big == small {
            return;
        }
        if self.size[big] < self.size[small] {
            std::mem::swap(&mut big, &mut small);
        }
        let mut s = small;
        loop {
            self.head[s] = big as u16;
            s = self.next[s] as usize;
            if s == small {
                break;
            }
        }
        self.next.swap(big, small);
        self.libs[big] += self.libs[small];
        self.size[big] += self.size[small];
    }

    /// Removes the chain on `cell` from the board; returns its stone count.
    fn remove_chain(&mut self, cell: usize) -> u32 {
        let first = self.chain(cell);
        let color = self.color[first];
        let keys = &ZOBRIST[color as usize - 1];
        let unit = AROUND_UNIT[color as usize].wrapping_sub(AROUND_UNIT[EMPTY as usize]);
        let mut count = 0;
        let mut s = first;
        loop {
            self.color[s] = EMPTY;
            self.hash ^= keys[s];
            self.add_empty(s);
            // Every neighbouring chain gains a liberty; the scratch chains are one per
            // direction, as in `place`.
            let around = Self::neighbours(s);
            for (i, &n) in around.iter().enumerate() {
                let c = self.chain(n).max(i);
                self.libs[c] = self.libs[c].wrapping_add(1);
                self.around[n] = self.around[n].wrapping_sub(unit);
            }
            count += 1;
            s = self.next[s] as usize;
            if s == first {
                break;
            }
        }
        loop {
            self.head[s] = NO_CHAIN;
            s = self.next[s] as usize;
            if s == first {
                break;
            }
        }
        self.stones[color as usize] -= count as u16;
        count
    }

    /// The Zobrist hash of the stones after `color` plays the legal move `cell`, without
    /// playing it.
    pub(super) fn hash_after(&self, cell: usize, color: u8) -> u64 {
        let mut hash = self.hash ^ ZOBRIST[color as usize - 1][cell];
        let around = Self::neighbours(cell);
        let chains = self.neighbour_chains(cell);
        for i in 0..4 {
            let c = chains[i];
            let captured = self.color[around[i]] == opponent(color) && self.libs_after(&chains, i) == 0;
            if captured && !chains[..i].contains(&c) {
                let mut s = c;
                loop {
                    hash ^= ZOBRIST[self.color[s] as usize - 1][s];
                    s = self.next[s] as usize;
                    if s == c {
                        break;
                    }
                }
            }
        }
        hash
    }

    #[inline(always)]
    fn remove_empty(&mut self, cell: usize) {
        let at = self.empty_at[cell] as usize;
        self.empties -= 1;
        let last = self.empty[self.empties as usize];
        self.empty[at] = last;
        self.empty_at[last as usize] = at as u16;
    }

    #[inline(always)]
    fn add_empty(&mut self, cell: usize) {
        self.empty_at[cell] = self.empties;
        self.empty[self.empties as usize] = cell as u16;
        self.empties += 1;
    }

    /// Swaps positions `i` and `j` of the empty list (the playouts' rejection sampling).
    #[inline(always)]
    pub(super) fn swap_empty(&mut self, i: usize, j: usize) {
        self.empty.swap(i, j);
        self.empty_at[self.empty[i] as usize] = i as u16;
        self.empty_at[self.empty[j] as usize] = j as u16;
    }
}
