//! Go over GTP: its [`GtpGame`] (komi, moves for either colour, Tromp-Taylor area
//! scoring, dead stones by Monte-Carlo ownership), at every board size.

use super::Go;
use crate::games::{Game, GameError, Move, Player};
use crate::gtp::game::{point, score_text, FinalStatus, GtpGame, DEAD_STONE_PLAYOUTS, OWNERSHIP_PLAYOUTS};

/// Go at every size: komi, moves for either colour (a controller may ask either to move,
/// as in handicap set-up), Tromp-Taylor area scoring.
impl<const N: usize> GtpGame for Go<N> {
    const BOARD_SIZE: u32 = N as u32;
    const SGF_GAME: u32 = 1;
    const SGF_RULES: Option<&'static str> = Some("Tromp-Taylor");

    /// Points are numbered row by row from the bottom (`A1` is 0); SGF counts rows from
    /// the top.
    fn sgf_point(&self, mv: Move) -> String {
        let index = usize::from(mv.0);
        point(index % N, N - 1 - index / N)
    }

    fn komi(&self) -> f32 {
        Go::komi(self)
    }

    fn set_komi(&mut self, komi: f32) {
        Go::set_komi(self, komi);
    }

    fn pass() -> Option<Move> {
        Some(Self::PASS)
    }

    /// Either colour may move while the game is on.
    fn give_turn(&mut self, player: Player, text: &str) -> Result<(), GameError> {
        if self.outcome().is_some() {
            return Err(GameError::IllegalMove(format!("{text} (the game is over)")));
        }
        Go::give_turn(self, player);
        Ok(())
    }

    fn play_as(&mut self, player: Player, mv: Move) -> Result<(), GameError> {
        Go::play_as(self, player, mv)
    }

    /// Black's area minus White's and the komi (Tromp-Taylor, on the board as it stands:
    /// dead stones count unless they were captured).
    fn final_score(&self) -> String {
        score_text(f64::from(self.area_score()))
    }

    /// Half the empty points: the side to move fills about every other one.
    fn moves_left(&self) -> u32 {
        self.empty_points() / 2
    }

    /// Monte-Carlo ownership ([`Go::ownership`], [`OWNERSHIP_PLAYOUTS`] playouts with a
    /// fixed seed), turned to run from the top-left point (GTP's rows count from the
    /// bottom).
    fn ownership(&self) -> Option<Vec<(Move, f32)>> {
        use rand_core::SeedableRng;
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(0);
        let bottom_up = Go::ownership(self, OWNERSHIP_PLAYOUTS, &mut rng);
        let top_down = (0..N).rev().flat_map(|row| (0..N).map(move |col| row * N + col));
        Some(top_down.map(|point| (Move(point as u16), bottom_up[point])).collect())
    }

    /// Dead stones by Monte-Carlo ownership ([`Go::dead_stones`], from
    /// [`DEAD_STONE_PLAYOUTS`] playouts with a fixed seed, so the answer repeats); alive
    /// stones are the others. Seki is not told apart from life: `seki` lists none.
    fn final_status_list(&self, status: FinalStatus) -> Vec<Move> {
        use rand_core::SeedableRng;
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(0);
        let dead = self.dead_stones(DEAD_STONE_PLAYOUTS, &mut rng);
        match status {
            FinalStatus::Dead => dead,
            FinalStatus::Alive => {
                (0..(N * N) as u16).map(Move).filter(|&p| self.stone_at(p).is_some() && !dead.contains(&p)).collect()
            }
            FinalStatus::Seki => Vec::new(),
        }
    }

    /// GTP's fixed layout (GTP 2, section 4.1.1; GNU Go 3.8 answers the same points): the
    /// star points of the third line below 13x13 and of the fourth from 13x13; two to
    /// four stones in the corners (no more on 7x7 and even sizes), then on odd sizes from
    /// 9x9 the centre (5, 7, 9 stones) and the middles of the sides (6 to 9).
    fn handicap_layout(stones: u32) -> Option<Vec<Move>> {
        let most = match N {
            0..=6 => 0,
            n if n == 7 || n % 2 == 0 => 4,
            _ => 9,
        };
        if !(2..=most).contains(&stones) {
            return None;
        }
        let line = if N < 13 { 2 } else { 3 };
        let (far, mid) = (N - 1 - line, (N - 1) / 2);
        let corners = [(line, line), (far, far), (line, far), (far, line)];
        let sides = [(line, mid), (far, mid), (mid, line), (mid, far)];
        // Beyond the corners, an odd count takes the centre and the rest go to the sides.
        let stones = stones as usize;
        let centre = stones > 4 && stones % 2 == 1;
        let sides_used = stones.saturating_sub(4 + usize::from(centre));
        let mut points: Vec<(usize, usize)> = corners[..stones.min(4)].to_vec();
        points.extend_from_slice(&sides[..sides_used]);
        if centre {
            points.push((mid, mid));
        }
        Some(points.into_iter().map(|(col, row)| Move((row * N + col) as u16)).collect())
    }

    fn dead_stones_of(&self, player: Player) -> Vec<Move> {
        let mut dead = self.final_status_list(FinalStatus::Dead);
        dead.retain(|&p| self.stone_at(p) == Some(player));
        dead
    }
}
