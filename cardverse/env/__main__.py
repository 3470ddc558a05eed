"""``python -m cardverse.env``: the environment's whole action table, one index a line."""

from .action_table import NUM_ACTIONS, action_name

for number in range(NUM_ACTIONS):
    print(number, action_name(number), sep="\t")
