//! Scoring: Tromp-Taylor area and the owner of each point at the end of a playout.

use super::{is_stone, Board, BLACK, CELLS, EMPTY, EMPTY_NEIGHBOURS, MAX_SIDE, WHITE};

impl<const N: usize> Board<N> {
    /// Tromp-Taylor area: (Black's points, White's points), each a stone of that colour
    /// or an empty point whose empty region reaches stones of that colour only. Where
    /// every empty point stands alone (the end of a light playout, as a rule) the stone
    /// counts and each point's neighbours give it; otherwise [`Board::area_by_regions`].
    pub(in crate::games::go) fn area(&self) -> (u32, u32) {
        // No branch per point: whose eye each one is, is random.
        let (mut black, mut white) = (u32::from(self.stones[BLACK as usize]), u32::from(self.stones[WHITE as usize]));
        for &cell in &self.empty[..self.empties as usize] {
            let around = self.around[cell as usize];
            if around & EMPTY_NEIGHBOURS != 0 {
                return self.area_by_regions();
            }
            // Four of a colour: every on-board neighbour is that colour's (never both).
            black += u32::from(around >> (4 * BLACK) & 7 == 4);
            white += u32::from(around >> (4 * WHITE) & 7 == 4);
        }
        (black, white)
    }

    /// Who owns `cell` at the end of a light playout, where every empty point is an eye
    /// or a seki liberty: its stone's colour, or the one colour of an empty point's
    /// neighbours; [`EMPTY`] when they are mixed (seki) or the board is empty.
    pub(in crate::games::go) fn final_owner(&self, cell: usize) -> u8 {
        match self.color[cell] {
            EMPTY => {
                let reaches = Self::neighbours(cell)
                    .into_iter()
                    .map(|n| self.color[n])
                    .filter(|&c| is_stone(c))
                    .fold(0, |reaches, c| reaches | c);
                if reaches == BLACK || reaches == WHITE {
                    reaches
                } else {
                    EMPTY
                }
            }
            stone => stone,
        }
    }

    /// [`Board::area`] by flooding each empty region.
    pub(super) fn area_by_regions(&self) -> (u32, u32) {
        let mut counts = [0u32; 3];
        let mut seen = [false; CELLS];
        let mut stack = [0u16; MAX_SIDE * MAX_SIDE];
        for point in 0..N * N {
            let cell = Self::cell(point);
            match self.color[cell] {
                EMPTY if !seen[cell] => {
                    // Flood the empty region, noting which colours it reaches.
                    let (mut region, mut reaches, mut top) = (0, 0u8, 1);
                    stack[0] = cell as u16;
                    seen[cell] = true;
                    while top > 0 {
                        top -= 1;
                        let c = stack[top] as usize;
                        region += 1;
                        for n in Self::neighbours(c) {
                            match self.color[n] {
                                EMPTY if !seen[n] => {
                                    seen[n] = true;
                                    stack[top] = n as u16;
                                    top += 1;
                                }
                                BLACK | WHITE => reaches |= self.color[n],
                                _ => {}
                            }
                        }
                    }
                    if reaches == BLACK || reaches == WHITE {
                        counts[reaches as usize] += region;
                    }
                }
                EMPTY => {}
                stone => counts[stone as usize] += 1,
            }
        }
        (counts[BLACK as usize], counts[WHITE as usize])
    }
}
