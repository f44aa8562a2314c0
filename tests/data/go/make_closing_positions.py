#!/usr/bin/env python3
"""Writes closing_positions.txt: 9x9 games that GNU Go 3.8 played against itself to two
passes with dead stones still on the board, each with GNU Go's own verdict on the final
position (`final_status_list dead`, `final_score`, dead stones removed, Chinese rules,
komi 7). GNU Go's moves vary with `--seed`; a game is kept (once) when every dead stone is of
the colour that passed first: the position before the second pass is then one where the
side to move finds the opponent's dead stones in its area after the opponent's pass. Usage: make_closing_positions.py [GAMES] > closing_positions.txt"""
import subprocess, sys

GNUGO = ["/usr/games/gnugo", "--mode", "gtp", "--chinese-rules", "--level", "1"]


def gtp(proc, command):
    proc.stdin.write(command + "\n")
    proc.stdin.flush()
    lines = []
    while True:
        line = proc.stdout.readline()
        if line.strip() == "" and lines:
            break
        if line.strip():
            lines.append(line.strip())
    reply = " ".join(lines)
    assert reply.startswith("="), f"{command}: {reply}"
    return reply[1:].strip()


def game(seed):
    proc = subprocess.Popen(GNUGO + ["--seed", str(seed)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    gtp(proc, "boardsize 9")
    gtp(proc, "komi 7")
    moves, passes, colour = [], 0, "b"
    while passes < 2 and len(moves) < 200:
        mv = gtp(proc, f"genmove {colour}").lower()
        moves.append(mv)
        passes = passes + 1 if mv == "pass" else 0
        colour = "w" if colour == "b" else "b"
    dead = gtp(proc, "final_status_list dead").split()
    colours = {gtp(proc, f"color {stone}") for stone in dead}
    score = gtp(proc, "final_score")
    proc.stdin.write("quit\n")
    proc.stdin.flush()
    proc.wait()
    return moves, dead, colours, score


def main():
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 150
    print("# seed | moves (GNU Go self-play, level 1, 9x9, komi 7; ends with two passes) | dead stones | final_score")
    seen = set()
    for seed in range(1, games + 1):
        moves, dead, colours, score = game(seed)
        first_passer = "black" if (len(moves) - 2) % 2 == 0 else "white"
        if dead and colours == {first_passer} and moves[-2:] == ["pass", "pass"] and tuple(moves) not in seen:
            seen.add(tuple(moves))
            print(f"{seed} | {' '.join(moves)} | {' '.join(s.lower() for s in dead)} | {score}")


if __name__ == "__main__":
    main()
