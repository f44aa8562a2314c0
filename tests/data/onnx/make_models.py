#!/usr/bin/env python3
"""Writes the small ONNX models of tests/onnx.rs and their reference outputs.

Each model reads ``input`` of shape [batch, 2, H, W] (float32, the batch dimension
symbolic), flattens it, applies Dense F->32 with ReLU and two heads: ``value`` [batch, 1]
(Dense 32->1, sigmoid: the side to move's win probability) and ``policy``
[batch, POLICY_SIZE] (Dense 32->POLICY_SIZE, logits). Weights are drawn from a fixed
seed: the models are untrained, and exist to check the evaluator, not to play.

The reference files hold, for fixed positions, the input encoding's checksums and the
outputs of a plain numpy forward pass, computed here from the position text with an
encoding written for this script (it shares no code with the crate).

Run from the repository root (needs the ``onnx`` and ``numpy`` packages):

    python3 tests/data/onnx/make_models.py
"""

import json
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
HIDDEN = 32


def make_weights(seed, features, policy_size):
    """The weights of one model, from `seed`, as float32 arrays."""
    rng = np.random.default_rng(seed)
    f32 = np.float32
    return {
        "w1": rng.normal(0.0, 0.4, (features, HIDDEN)).astype(f32),
        "b1": rng.normal(0.0, 0.1, (HIDDEN,)).astype(f32),
        "wv": rng.normal(0.0, 0.3, (HIDDEN, 1)).astype(f32),
        "bv": rng.normal(0.0, 0.1, (1,)).astype(f32),
        "wp": rng.normal(0.0, 0.3, (HIDDEN, policy_size)).astype(f32),
        "bp": rng.normal(0.0, 0.1, (policy_size,)).astype(f32),
    }


def make_model(weights, shape, policy_size, heads=("value", "policy")):
    """The ONNX model of `weights` for inputs [batch, *shape], with the named heads."""
    planes, height, width = shape
    inits = [numpy_helper.from_array(a, name) for name, a in weights.items()]
    nodes = [
        helper.make_node("Flatten", ["input"], ["flat"], axis=1),
        helper.make_node("Gemm", ["flat", "w1", "b1"], ["hidden_linear"]),
        helper.make_node("Relu", ["hidden_linear"], ["hidden"]),
    ]
    outputs = []
    if "value" in heads:
        nodes.append(helper.make_node("Gemm", ["hidden", "wv", "bv"], ["value_logit"]))
        nodes.append(helper.make_node("Sigmoid", ["value_logit"], ["value"]))
        outputs.append(helper.make_tensor_value_info("value", TensorProto.FLOAT, ["batch", 1]))
    else:
        inits = [i for i in inits if i.name not in ("wv", "bv")]
    if "policy" in heads:
        nodes.append(helper.make_node("Gemm", ["hidden", "wp", "bp"], ["policy"]))
        outputs.append(helper.make_tensor_value_info("policy", TensorProto.FLOAT, ["batch", policy_size]))
    else:
        inits = [i for i in inits if i.name not in ("wp", "bp")]
    inputs = [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["batch", planes, height, width])]
    graph = helper.make_graph(nodes, "tiny", inputs, outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="make_models.py")
    model.ir_version = 7
    onnx.checker.check_model(model)
    return model


def forward(weights, x):
    """The plain numpy forward pass (float64) of one encoded position `x`."""
    w = {k: v.astype(np.float64) for k, v in weights.items()}
    hidden = np.maximum(x.reshape(-1) @ w["w1"] + w["b1"], 0.0)
    value = 1.0 / (1.0 + np.exp(-(hidden @ w["wv"] + w["bv"])))
    policy = hidden @ w["wp"] + w["bp"]
    return float(value[0]), [float(p) for p in policy]


def connect4_encoding(moves):
    """Connect Four after `moves` (columns 1-7): planes [me, opponent] x 6 rows (row 0 at
    the bottom) x 7 columns, from the side to move's view."""
    board = np.full((6, 7), -1)
    heights = [0] * 7
    for ply, ch in enumerate(moves):
        col = int(ch) - 1
        assert heights[col] < 6, f"column {ch} full in {moves}"
        board[heights[col], col] = ply % 2
        heights[col] += 1
    assert not connect4_won(board), f"{moves} is over"
    mover = len(moves) % 2
    return np.stack([board == mover, board == 1 - mover]).astype(np.float64)


def connect4_won(board):
    """Whether either side has four in a row on `board` (-1 empty)."""
    for r in range(6):
        for c in range(7):
            who = board[r, c]
            if who < 0:
                continue
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(r + k * dr, c + k * dc) for k in range(4)]
                if all(0 <= rr < 6 and 0 <= cc < 7 and board[rr, cc] == who for rr, cc in cells):
                    return True
    return False


def othello_encoding(obf):
    """Othello from an OBF board (64 squares a1..h8, then X or O to move): planes
    [me, opponent] x 8 ranks (row 0 = rank 1) x 8 files, from the side to move's view."""
    squares, side = obf.split()
    assert len(squares) == 64 and side in "XO"
    mine, theirs = (side, "O" if side == "X" else "X")
    planes = np.zeros((2, 8, 8))
    for i, ch in enumerate(squares):
        if ch == mine:
            planes[0, i // 8, i % 8] = 1.0
        elif ch == theirs:
            planes[1, i // 8, i % 8] = 1.0
    return planes


def reference(name, weights, positions, encode):
    """The reference entries of `positions` (texts the crate parses as positions)."""
    entries = []
    for text in positions:
        x = encode(text)
        flat = x.reshape(-1)
        value, policy = forward(weights, x)
        entries.append(
            {
                "position": text,
                "input_sum": float(flat.sum()),
                "input_weighted_sum": float(flat @ np.arange(flat.size)),
                "value": value,
                "policy": policy,
            }
        )
    return {"model": name, "positions": entries}


CONNECT4_POSITIONS = [
    "",
    "4",
    "44",
    "4453",
    "3344",
    "1234567",
    "444444",
    "12121",
    "445566",
    "1234567123",
    "4444443333332222",
]

# The start, one move later, FFO #1 (both sides to move), #2, #3, #40, #41
# (tests/data/othello/), and a forced pass.
OTHELLO_POSITIONS = [
    "---------------------------OX------XO--------------------------- X",
    "---------------------------OX------XXX-------------------------- O",
    "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X",
    "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- O",
    "-XXXXXX---XOOOO--XOXXOOX-OOOOOOOOOOOXXOOOOOXXOOX--XXOO----XXXXX- X",
    "----OX----OOXX---OOOXX-XOOXXOOOOOXXOXXOOOXXXOOOOOXXXXOXO--OOOOOX X",
    "O--OOOOX-OOOOOOXOOXXOOOXOOXOOOXXOOOOOOXX---OOOOX----O--X-------- X",
    "-OOOOO----OOOOX--OOOOOO-XXXXXOO--XXOOX--OOXOXX----OXXO---OOO--O- X",
    # White to move must pass: Black can take c1.
    "XO" + "-" * 62 + " O",
]


def write(model, name):
    path = os.path.join(HERE, name)
    onnx.save(model, path)
    print(f"{name}: {os.path.getsize(path)} bytes")


def write_json(data, name):
    with open(os.path.join(HERE, name), "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
    print(f"{name} written")


def main():
    c4 = make_weights(4, 2 * 6 * 7, 7)
    write(make_model(c4, (2, 6, 7), 7), "connect4_tiny.onnx")
    write(make_model(c4, (2, 6, 7), 7, heads=("value",)), "connect4_value_only.onnx")
    write(make_model(c4, (2, 6, 7), 7, heads=("policy",)), "connect4_policy_only.onnx")
    write_json(reference("connect4_tiny.onnx", c4, CONNECT4_POSITIONS, connect4_encoding),
               "connect4_tiny.reference.json")
    oth = make_weights(8, 2 * 8 * 8, 65)
    write(make_model(oth, (2, 8, 8), 65), "othello_tiny.onnx")
    write_json(reference("othello_tiny.onnx", oth, OTHELLO_POSITIONS, othello_encoding),
               "othello_tiny.reference.json")


if __name__ == "__main__":
    main()
