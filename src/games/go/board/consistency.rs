//! A test-only check that every incremental field of a [`Board`] matches its value recomputed from the stones.

use super::{Board, BLACK, EMPTY, NO_CHAIN, WHITE, ZOBRIST};

impl<const N: usize> Board<N> {
    /// Panics unless every incremental field equals its value recomputed from the stones:
    /// the hash, each chain's representative, size and pseudo-liberties, the neighbour
    /// counts, the empty list; and [`Board::atari_liberty`] agrees with the chain's
    /// liberties.
    pub(in crate::games::go) fn assert_consistent(&self) {
        let mut hash = 0;
        let mut empties = 0;
        for point in 0..N * N {
            let cell = Self::cell(point);
            let color = self.color[cell];
            if color == EMPTY {
                assert_eq!(self.around[cell], self.around_count(cell), "neighbour counts");
                assert_eq!(self.empty[self.empty_at[cell] as usize] as usize, cell, "empty list");
                assert_eq!(self.head[cell], NO_CHAIN, "an empty point is in no chain");
                empties += 1;
                continue;
            }
            hash ^= ZOBRIST[color as usize - 1][cell];
            // The chain by flood fill, against the linked list and the representative.
            let members = self.chain_by_flood_fill(cell);
            let head = self.chain(cell);
            assert!(members.iter().all(|&m| self.chain(m) == head), "one representative per chain");
            assert_eq!(self.size[head] as usize, members.len(), "chain size");
            let mut listed = 1;
            let mut s = self.next[cell] as usize;
            while s != cell {
                assert!(members.contains(&s), "the stone list stays in the chain");
                listed += 1;
                s = self.next[s] as usize;
            }
            assert_eq!(listed, members.len(), "the stone list holds the chain");
            assert_eq!(self.around[cell], self.around_count(cell), "neighbour counts");
            let libs: usize =
                members.iter().map(|&m| Self::neighbours(m).iter().filter(|&&n| self.color[n] == EMPTY).count()).sum();
            assert_eq!(self.libs[head] as usize, libs, "pseudo-liberties");
            let liberties = self.liberties_by_flood_fill(cell);
            let atari = if liberties.len() == 1 { Some(liberties[0]) } else { None };
            assert_eq!(self.atari_liberty(cell), atari, "the liberty of a chain in atari");
        }
        assert_eq!(self.empties, empties, "empty count");
        let count = |c: u8| (0..N * N).filter(|&p| self.color[Self::cell(p)] == c).count() as u16;
        assert_eq!(self.stones[1..], [count(BLACK), count(WHITE)], "stone counts");
        assert_eq!(self.area(), self.area_by_regions(), "area");
        assert_eq!(self.hash, hash, "incremental hash equals the recomputed one");
    }

    /// The stones of the chain on `cell`, found by flood fill.
    pub(in crate::games::go) fn chain_by_flood_fill(&self, cell: usize) -> Vec<usize> {
        let mut members = vec![cell];
        let mut i = 0;
        while i < members.len() {
            for n in Self::neighbours(members[i]) {
                if self.color[n] == self.color[cell] && !members.contains(&n) {
                    members.push(n);
                }
            }
            i += 1;
        }
        members
    }

    /// The liberties of the chain on `cell`, sorted, found by flood fill.
    pub(in crate::games::go) fn liberties_by_flood_fill(&self, cell: usize) -> Vec<usize> {
        let mut liberties: Vec<usize> = (self.chain_by_flood_fill(cell).into_iter())
            .flat_map(Self::neighbours)
            .filter(|&n| self.color[n] == EMPTY)
            .collect();
        liberties.sort_unstable();
        liberties.dedup();
        liberties
    }
}
