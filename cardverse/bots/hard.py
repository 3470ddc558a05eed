"""The ``hard`` bot (R30): determinized flat Monte Carlo over the moves of one seat's view.

For each decision it

1. plays at once when it has one legal action, or a sure way out (:func:`endgame.sure_win`);
2. solves the round exactly when only two seats still hold cards (:func:`endgame.solve_duel`):
   the other hand is then every unseen card;
3. otherwise samples deals of the unseen cards consistent with its view
   (:class:`knowledge.Knowledge`: hand sizes, cards played, its own exchange), and runs a flat
   Monte Carlo search at the root: a UCB1 bandit over the candidate moves, each tried a minimum
   number of times (on shared deals, so the first comparisons are like for like), every playout
   finishing the round with the heuristic policy of :mod:`cardverse.bots.policy` for every seat.
   A playout is worth the points of the place the bot reaches (R22). With ``tree`` the bot's own
   later decisions are searched as well (:mod:`.tree_search`: a node per information set of the
   bot, UCB1 at each, the others played by the policy). It plays the move with the best mean;
   timed, it stops early when one move is clearly the best (:func:`_clear_winner`).

Its budget is a number of playouts per move (deterministic for a seed: tests, arena) and/or a
time per move (default 1 s when no playout count is given). Give-backs in the exchange are
searched (:meth:`HardBot._give_back`: each candidate give-back played out over the round that
follows; ``exchange_search=False``: the policy's choice); a seven pass or ten discard (R36,
R37) is searched like a play, over choices that differ by rank. The round it searches from is
the engine's :func:`round_from_known`, so the parts of the rules in force judge every simulated
action; the playouts take the policy's rank-count shortcut only where the rules declare it
legal, and in ``strict`` mode (tests) every simulated action goes through the referee's check
and an illegal one raises. Candidate moves that differ only by suits are merged when suits never
matter (no straights, no suit lock, no spade three), and very long move lists are cut to the
policy's best few.
"""

from __future__ import annotations

import math
import random
import time

import cardverse.bots.fitted as fitted
import cardverse.bots.policy as policy

from ..engine import PlayerView
from ..engine.movegen import give_moves
from ..engine.plays import CARDS_MASK, DISCARD, GIVE
from ..engine.rounds import Round
from .base import BotBase
from .endgame import solve_duel
from .knowledge import Knowledge, PlausibleDeals
from .models import MODEL_NAMES, SENSIBLE
from .normal import plain_sure_win, view_context
from .playout import next_move, play_out
from .positions import round_of_view
from .proof import deals_of, winning_moves
from .tree_search import Node, candidate_order, finish, merged_moves

DEFAULT_TIME = 1.0
MAX_CANDIDATES = 12
MIN_VISITS = 4
SHARED = 0.5  # share of the budget spent on deals shared by every candidate
SURPRISE = 0.2  # weight factor of a sampled deal per action the policy would not have made
POOL_SHARE = 0.5  # candidate deals weighed per playout of the budget
MIN_POOL = 8
MAX_POOL = 500
BURN_IN = 60  # Metropolis steps before the first kept deal (fewer for small budgets)
POOL_TIME_SHARE = 0.25  # share of the time limit that weighing deals may take
EXPLORATION = 0.5
TIME_MARGIN = 0.92  # stop the search a little before the limit, to leave time to answer
PROOF_HAND = 8  # own hand size at which the exact sure-win search is tried
PROOF_DEALS = 300  # most deals of the unseen cards it searches over
PROOF_BUDGET = 3000  # its node budget
PROOF_TIME_SHARE = 0.3  # and the share of the time limit it may take
TIE = 1e-9  # means closer than this are a tie, broken by the policy's preference
STOP_MIN = 1500  # time-limited, playouts before the search may stop on a clear winner
STOP_EVERY = 250  # and how often it checks
STOP_Z = 4.0  # a clear winner: its mean this many standard errors above every other's
SEAT_MODELS = True  # score the opponent models of :mod:`.models` per seat in the inference
PLAYOUT_MODELS = "sample"  # who plays the others in the playouts: none (the policy), best, sample
MODELS = ("sensible", "structure")  # the models those per-seat posteriors are over
PLAYOUT_MODEL_CHOICES = ("none", "best", "sample")
UNEXPLAINED = 1.0  # a seat whose best model misses more than this share of its actions: uniform
LOWEST_GATE = 0.0  # a seat's lowest-play share below this is dropped from its posterior
DECISIVE = 0.0  # "best" plays a seat by its likeliest model only with this posterior or more
CHAINS = 1  # independent Metropolis chains for the pool of deals
THIN = 1  # chain states per kept deal
TREE = True  # search a tree over the bot's own later decisions (ISMCTS), not only the root
TREE_EXPLORATION = 0.5  # UCB1's exploration constant below the root
INNER_CANDIDATES = 6  # moves searched at a decision below the root (the policy's best few)
WIDENING = 0.0  # below the root, UCB1 over the first 1 + WIDENING * sqrt(visits) candidates
PLAYOUT_BLOCK = "none"  # in playouts, who spends a control on a player with one card: none,
# the bot itself ("me") or every seat ("all") (policy.Style.block_seat)
PLAYOUT_POLICY = "rules"  # who plays in the playouts: the rules of thumb, or the fitted policy
PLAYOUT_POLICY_CHOICES = ("rules", "fitted")
FITTED_SEATS = "me"  # with the fitted policy: the bot's own seat ("me") or every seat ("all")
FITTED_SEATS_CHOICES = ("me", "all")
FITTED_HAND = 99  # the fitted policy plays a seat while its hand holds at most so many cards
FITTED_CHOICE = "greedy"  # its best score ("greedy") or a draw from its softmax ("sample")
FITTED_CHOICE_CHOICES = ("greedy", "sample")
MAX_NODES = 20000  # nodes a tree may grow to (its memory stays bounded at long time limits)
EXCHANGE_SEARCH = True  # search the exchange give-back (R25) over the next round's playouts
EXCHANGE_CANDIDATES = 8  # give-backs it compares (the policy's order: its own choice first)
EXCHANGE_BUDGET = 4.0  # its playouts, in moves' budgets (one give-back a round: it can take more)
BLOCK_SHARE = 0.0  # share of sampled deals whose playouts have every seat block a one-card player
FINAL_CHOICES = ("mean", "visits", "lcb")  # how the searched move is picked at the end
FINAL = "mean"
PRIOR_MARGIN = 0.0  # the policy's own move is kept unless another's mean beats it by this much


class HardBot(BotBase):
    """Determinized Monte Carlo with heuristic playouts and exact endgames (R30)."""

    level = "hard"

    def __init__(
        self,
        *,
        seed: int | None = None,
        playouts: int | None = None,
        time_limit: float | None = None,
        strict: bool = False,
        tree: bool = TREE,
        widening: float = WIDENING,
        seat_models: bool = SEAT_MODELS,
        playout_models: str = PLAYOUT_MODELS,
        unexplained: float = UNEXPLAINED,
        decisive: float = DECISIVE,
        lowest_gate: float = LOWEST_GATE,
        chains: int = CHAINS,
        thin: int = THIN,
        playout_block: str = PLAYOUT_BLOCK,
        exchange_search: bool = EXCHANGE_SEARCH,
        exchange_budget: float = EXCHANGE_BUDGET,
        exchange_candidates: int = EXCHANGE_CANDIDATES,
        max_candidates: int = MAX_CANDIDATES,
        exploration: float = EXPLORATION,
        block_share: float = BLOCK_SHARE,
        others_model: str = "",
        others_share: float = 1.0,
        final: str = FINAL,
        prior_margin: float = PRIOR_MARGIN,
        surprise: float = SURPRISE,
        models: tuple[str, ...] | list[str] = MODELS,
        playout_policy: str = PLAYOUT_POLICY,
        fitted_seats: str = FITTED_SEATS,
        fitted_hand: int = FITTED_HAND,
        fitted_choice: str = FITTED_CHOICE,
        fitted_weights: str = "",
    ) -> None:
        if playouts is not None and playouts < 1:
            raise ValueError("playouts must be at least 1")
        if time_limit is not None and time_limit <= 0:
            raise ValueError("time_limit must be positive")
        if playout_models not in PLAYOUT_MODEL_CHOICES:
            raise ValueError(
                f"playout_models must be one of {', '.join(PLAYOUT_MODEL_CHOICES)}, "
                f"not {playout_models!r}"
            )
        if chains < 1 or thin < 1:
            raise ValueError("chains and thin must be at least 1")
        if exchange_budget <= 0 or exchange_candidates < 1:
            raise ValueError("exchange_budget must be positive and exchange_candidates at least 1")
        if max_candidates < 1:
            raise ValueError(f"max_candidates must be at least 1, not {max_candidates!r}")
        if exploration < 0:
            raise ValueError(f"exploration must not be negative, not {exploration!r}")
        if not 0.0 <= block_share <= 1.0:
            raise ValueError(f"block_share must be between 0 and 1, not {block_share!r}")
        if others_model and others_model not in MODEL_NAMES:
            raise ValueError(
                f"others_model must be one of {', '.join(MODEL_NAMES)} (or empty), "
                f"not {others_model!r}"
            )
        if final not in FINAL_CHOICES:
            raise ValueError(f"final must be one of {', '.join(FINAL_CHOICES)}, not {final!r}")
        if prior_margin < 0:
            raise ValueError(f"prior_margin must not be negative, not {prior_margin!r}")
        if not 0.0 <= surprise <= 1.0:
            raise ValueError(f"surprise must be between 0 and 1, not {surprise!r}")
        if not 0.0 <= lowest_gate <= 1.0:
            raise ValueError(f"lowest_gate must be between 0 and 1, not {lowest_gate!r}")
        unknown = [name for name in models if name not in MODEL_NAMES]
        if unknown or not models:
            raise ValueError(
                f"models are some of {', '.join(MODEL_NAMES)}, not {', '.join(unknown) or 'none'}"
            )
        # The opponent models the per-seat posteriors are over (seat_models, playout_models).
        self.model_set = tuple(name in models for name in MODEL_NAMES)
        self.surprise = surprise  # a deal's weight factor per action its models do not explain
        self.max_candidates = max_candidates  # root moves searched (the policy's best few)
        self.exploration = exploration  # UCB1's constant at the root
        self.block_share = block_share  # deals whose playouts have every seat block (see Style)
        # Every other seat played by this one model in the playouts (a measuring aid: what a
        # known opponent model would be worth); empty: the inference's choice.
        self.others_model = MODEL_NAMES.index(others_model) if others_model else -1
        if not 0.0 <= others_share <= 1.0:
            raise ValueError(f"others_share must be between 0 and 1, not {others_share!r}")
        self.others_share = others_share  # and each seat so played with this chance per deal
        self.final = final  # the move played: best mean, most visits or best lower bound
        self.prior_margin = prior_margin
        _check_choice("playout_policy", playout_policy, PLAYOUT_POLICY_CHOICES)
        _check_choice("fitted_seats", fitted_seats, FITTED_SEATS_CHOICES)
        _check_choice("fitted_choice", fitted_choice, FITTED_CHOICE_CHOICES)
        if isinstance(fitted_hand, bool) or not isinstance(fitted_hand, int) or fitted_hand < 1:
            raise ValueError(
                f"fitted_hand must be a whole number of cards, 1 or more, not {fitted_hand!r}"
            )
        # A missing or malformed weights file fails here, clearly (WeightsError, a ValueError).
        self._fitted_index = (
            fitted.weights_index(fitted_weights) if playout_policy == "fitted" else -1
        )
        self.playout_policy = playout_policy  # who plays in the playouts (rules or fitted)
        self.fitted_seats = fitted_seats  # the fitted policy's seats: the bot's own, or all
        self.fitted_hand = fitted_hand  # and from which hand size on
        self.fitted_choice = fitted_choice  # its best score, or a draw from its softmax
        self.seed = seed
        self.strict = strict  # simulate through the referee's check: an illegal move raises
        self.tree = tree  # search the bot's own later decisions too (:mod:`.tree_search`)
        self.widening = widening  # progressive widening below the root (0: every arm at once)
        # Opponent models (:mod:`.models`): scored per seat by the inference, and playing the
        # others in the playouts ("best": each seat its most likely model; "sample": a model
        # drawn per playout from the seat's posterior; "none": the policy plays every seat).
        self.seat_models = seat_models or playout_models != "none"
        self.playout_models = playout_models
        self.unexplained = unexplained
        self.lowest_gate = lowest_gate  # the lowest play kept only with this posterior
        self.decisive = decisive  # "best": a seat's model only with this posterior, else policy
        self.chains = chains  # independent Metropolis chains sharing the pool of deals
        self.thin = thin  # and one chain state kept in so many
        self.last_deals: PlausibleDeals | None = None  # the last search's deals (for tests)
        if playout_block not in ("none", "me", "all"):
            raise ValueError("playout_block is none, me or all")
        self.playout_block = playout_block  # playouts: who blocks a player with one card
        self.exchange_search = exchange_search  # search the give-back of the exchange (R25)
        self.exchange_budget = exchange_budget  # its playouts, in moves' budgets
        self.exchange_candidates = exchange_candidates  # and how many give-backs it compares
        self.playouts = playouts
        self.time_limit = time_limit if time_limit is not None or playouts else DEFAULT_TIME
        self.rng = random.Random(seed)
        self.last_playouts = 0  # how many playouts the last decision ran (for tests, tuning)
        self.last_reason = ""  # why the last move was chosen: single, sure, duel, search, policy
        self.last_tree: Node | None = None  # the last search's tree, when it searched one
        self._nodes = 0  # nodes of the tree being searched

    # -- the decision ---------------------------------------------------------------------------

    def decide(self, view: PlayerView) -> int:
        start = time.perf_counter()
        self.last_playouts = 0
        last_move, opponent_min, last_count = view_context(view)
        style = policy.Style.of(view.rules)
        legal = view.legal_moves
        fallback = policy.choose(
            view.hand, legal, last_move, view.reversed_order, style, opponent_min, last_count
        )
        if legal[0] & GIVE and view.phase == "exchange":
            if self.exchange_search:
                return self._give_back(view, fallback, style, start)
            self.last_reason = "policy"
            return fallback
        knowledge = Knowledge.of(view)
        if not legal[0] & (GIVE | DISCARD):
            won = plain_sure_win(view, knowledge, last_move)
            if won is not None:
                self.last_reason = "sure"
                return won
        template = round_of_view(view)
        if view.hand.bit_count() <= PROOF_HAND and not legal[0] & GIVE:
            deadline = (
                start + self.time_limit * PROOF_TIME_SHARE if self.time_limit is not None else None
            )
            proven = self._proof(template, view.seat, knowledge, fallback, deadline)
            if proven is not None:
                self.last_reason = "proof"
                return proven
        exact = knowledge.exact_hands()
        if exact is not None:
            duel = template.clone()
            duel.hands = exact
            solved = solve_duel(duel, view.seat)
            if solved is not None and solved[1]:
                self.last_reason = "duel"
                return solved[0]
        candidates = self._candidates(view, fallback, style, self.max_candidates)
        if len(candidates) == 1:
            self.last_reason = "policy"
            return candidates[0]
        self.last_reason = "search"
        if self.playouts is not None:
            pool = min(MAX_POOL, max(MIN_POOL, int(self.playouts * POOL_SHARE)))
        else:
            pool = MAX_POOL
        pool_deadline = (
            start + self.time_limit * POOL_TIME_SHARE if self.time_limit is not None else None
        )
        deals = PlausibleDeals(
            view,
            knowledge,
            self.rng,
            pool=pool,
            surprise=self.surprise,
            burn_in=min(BURN_IN, pool),
            deadline=pool_deadline,
            seat_models=self.seat_models,
            chains=self.chains,
            thin=self.thin,
            unexplained=self.unexplained,
            decisive=self.decisive,
            model_set=self.model_set,
            lowest_gate=self.lowest_gate,
        )
        self.last_deals = deals
        if self.playout_block != "none":
            style = style._replace(block_seat=view.seat if self.playout_block == "me" else -2)
        if self.playout_policy == "fitted":
            style = style._replace(
                fitted_seat=view.seat if self.fitted_seats == "me" else -2,
                fitted_hand=self.fitted_hand,
                fitted_sample=self.fitted_choice == "sample",
                fitted_weights=self._fitted_index,
            )
        return self._search(view, deals, template, candidates, style, start)

    def _give_back(self, view: PlayerView, fallback: int, style: policy.Style, start: float) -> int:
        """The exchange give-back (R25) chosen by search: each candidate (suit-equivalent ones
        merged, the policy's best few) is played out over the round that follows, on the same
        sampled deals for every candidate (the cards it received cap the giver's, the cards it
        gives back are the giver's); a give-back still owed by a later pair is the policy's.
        The best mean place wins, a tie goes to the policy's order."""
        candidates = self._candidates(view, fallback, style, self.exchange_candidates)
        if len(candidates) == 1:
            self.last_reason = "policy"
            return candidates[0]
        self.last_reason = "exchange"
        me = view.seat
        pairs = view.exchange_pairs  # (giver, receiver, count), the President's first
        mine = next(i for i, pair in enumerate(pairs) if pair[1] == me)
        giver = pairs[mine][0]
        later = pairs[mine + 1 :]
        rules = view.rules
        president = view.places[-1][0] if view.places else -1
        knowledge = Knowledge.of(view)
        arms = len(candidates)
        totals = [0.0] * arms
        scale = 1.0 / (rules.players - 1)
        budget = None if self.playouts is None else int(self.playouts * self.exchange_budget)
        # Timed, it keeps to the move's time limit (thousands of playouts at 1 s).
        deadline = start + self.time_limit * TIME_MARGIN if self.time_limit is not None else None
        clock = time.perf_counter
        done = 0
        while budget is None or done + arms <= max(budget, arms):
            if deadline is not None and clock() >= deadline:
                break
            dealt = knowledge.sample(self.rng)
            for arm in range(arms):
                cards = candidates[arm] & CARDS_MASK
                hands = list(dealt)
                hands[me] &= ~cards
                hands[giver] |= cards
                for other_giver, receiver, count in later:
                    owed = policy.give_back(hands[receiver], give_moves(hands[receiver], count))
                    hands[receiver] &= ~owed & CARDS_MASK
                    hands[other_giver] |= owed & CARDS_MASK
                round_ = Round(rules, hands, view.leader, previous_president=president)
                points = finish(round_, me, style, self.strict)
                totals[arm] += (points - 1) * scale
            done += arms
        self.last_playouts = done
        best = 0
        for arm in range(1, arms):
            if totals[arm] > totals[best] + TIE:
                best = arm
        return candidates[best]

    @staticmethod
    def _proof(
        template: Round, me: int, knowledge: Knowledge, fallback: int, deadline: float | None
    ) -> int | None:
        """A move proven to win against every deal and answer (:mod:`.proof`), the policy's own
        choice when it is one of them; None when there is none or the search is too big."""
        deals = deals_of(knowledge, PROOF_DEALS)
        if deals is None:
            return None
        won = winning_moves(template, me, deals, PROOF_BUDGET, deadline)
        if not won:
            return None
        return fallback if fallback in won else won[0]

    @staticmethod
    def _candidates(view: PlayerView, fallback: int, style: policy.Style, limit: int) -> list[int]:
        """The root moves worth searching: suit-equivalent plays merged, long lists cut."""
        legal = list(view.legal_moves)
        moves = merged_moves(legal, fallback, not style.fast_playouts)
        owed = bool(legal[0] & (GIVE | DISCARD))
        # The policy's order of preference: its own choice first. Ties in the search go to the
        # earlier candidate, and a long list is cut to its best few.
        moves = candidate_order(moves, fallback, view.hand, view.reversed_order, owed)
        return moves[:limit]

    def _search(
        self,
        view: PlayerView,
        deals: PlausibleDeals,
        template: Round,
        candidates: list[int],
        style: policy.Style,
        start: float,
    ) -> int:
        me = view.seat
        players = view.rules.players
        scale = 1.0 / (players - 1)
        arms = len(candidates)
        visits = [0] * arms
        totals = [0.0] * arms
        squares = [0.0] * arms  # sums of squared rewards, for the early stop
        budget = self.playouts
        deadline = start + self.time_limit * TIME_MARGIN if self.time_limit is not None else None
        clock = time.perf_counter
        done = 0
        root = Node(candidates) if self.tree else None
        self.last_tree = root
        share = self.block_share
        blocking = style._replace(block_seat=-2)  # every seat blocks a player with one card
        exploration = self.exploration
        rng = self.rng
        self._nodes = 0
        # Shared phase: every candidate on the same sampled deals (common random numbers), so
        # that the comparison between moves is like for like; at least MIN_VISITS rounds.
        if budget is not None:
            shared_until = max(MIN_VISITS * arms, int(budget * SHARED))
        else:
            shared_until = 1 << 62
        shared_deadline = (
            start + self.time_limit * TIME_MARGIN * SHARED if self.time_limit is not None else None
        )
        rounds = 0
        while done + arms <= shared_until or rounds < MIN_VISITS:
            if budget is not None and done >= budget:
                break
            if deadline is not None and clock() >= deadline:
                break
            if rounds >= MIN_VISITS and shared_deadline is not None and clock() >= shared_deadline:
                break
            hands = deals.sample()
            models = self._models(deals, me)
            played = blocking if share > 0.0 and rng.random() < share else style
            for arm in range(arms):
                if budget is not None and done >= budget:
                    break
                if root is None:
                    points = play_out(
                        template, hands, candidates[arm], me, played, self.strict, models
                    )
                else:
                    points = self._descend(root, template, hands, arm, me, played, scale, models)
                reward = (points - 1) * scale
                visits[arm] += 1
                totals[arm] += reward
                squares[arm] += reward * reward
                done += 1
            rounds += 1
        # Then UCB1 over the candidates, a fresh deal for each playout.
        checked = done
        while (budget is None or done < budget) and (deadline is None or clock() < deadline):
            log_n = math.log(done + 1)
            best_arm = 0
            best_score = -1.0
            for arm in range(arms):
                n = visits[arm]
                if n == 0:
                    best_arm = arm
                    break
                score = totals[arm] / n + exploration * math.sqrt(log_n / n)
                if score > best_score:
                    best_arm, best_score = arm, score
            hands = deals.sample()
            models = self._models(deals, me)
            played = blocking if share > 0.0 and rng.random() < share else style
            if root is None:
                points = play_out(
                    template, hands, candidates[best_arm], me, played, self.strict, models
                )
            else:
                points = self._descend(root, template, hands, best_arm, me, played, scale, models)
            reward = (points - 1) * scale
            visits[best_arm] += 1
            totals[best_arm] += reward
            squares[best_arm] += reward * reward
            done += 1
            if budget is None and done - checked >= STOP_EVERY and done >= STOP_MIN:
                # Time-limited: play at once when one move is clearly the best.
                checked = done
                if _clear_winner(visits, totals, squares):
                    break
        self.last_playouts = done
        return candidates[_pick(visits, totals, squares, self.final, self.prior_margin)]

    def _models(self, deals: PlausibleDeals, me: int) -> tuple[int, ...] | None:
        """The opponent model of each seat for one playout (None: the policy for every seat)."""
        if self.others_model >= 0:
            share = self.others_share
            rng = self.rng
            fixed = [
                self.others_model if share >= 1.0 or rng.random() < share else SENSIBLE
                for _ in deals.posteriors
            ]
            fixed[me] = SENSIBLE
            return tuple(fixed)
        mode = self.playout_models
        if mode == "none" or not deals.deals:
            return None
        if mode == "best":
            chosen = list(deals.seat_model)
        else:
            chosen = [SENSIBLE] * len(deals.posteriors)
            rng = self.rng
            for seat, posterior in enumerate(deals.posteriors):
                pick = rng.random()
                for model, share in enumerate(posterior):
                    pick -= share
                    if pick < 0.0:
                        chosen[seat] = model
                        break
        chosen[me] = SENSIBLE
        return tuple(chosen)

    def _descend(
        self,
        root: Node,
        template: Round,
        hands: list[int],
        arm: int,
        me: int,
        style: policy.Style,
        scale: float,
        models: tuple[int, ...] | None,
    ) -> int:
        """One iteration of the tree search (:mod:`.tree_search`) from root move ``arm`` on a
        sampled deal: down the tree of the bot's own decisions (the others played by the
        policy), one new node, then the policy to the end; the points ``me`` earns (R22)."""
        strict = self.strict
        round_ = template.playout(hands)
        if strict:
            round_.apply(root.moves[arm])
        else:
            round_.apply_unchecked(root.moves[arm])
        held = round_.hands
        children = root.children
        path: list[Node] = []
        arms: list[int] = []
        trail: list[int] = []
        expanded = False
        while round_.turn >= 0 and held[me]:
            if round_.turn != me:
                move = next_move(round_, style, models)
                trail.append(move)
            else:
                key = (arm, held[me], tuple(trail))
                node = children.get(key)
                if node is None:
                    if expanded or self._nodes >= MAX_NODES:
                        break
                    node = Node(_inner_candidates(round_, style))
                    children[key] = node
                    expanded = True
                    self._nodes += 1
                arm = node.select(TREE_EXPLORATION, self.widening)
                path.append(node)
                arms.append(arm)
                trail = []
                children = node.children
                move = node.moves[arm]
            if strict:
                round_.apply(move)
            else:
                round_.apply_unchecked(move)
        points = finish(round_, me, style, strict, models)
        reward = (points - 1) * scale
        for index in range(len(path)):
            path[index].update(arms[index], reward)
        return points


def _pick(
    visits: list[int], totals: list[float], squares: list[float], final: str, margin: float
) -> int:
    """The arm played after the search. ``mean``: the best mean; ``visits``: the most tried;
    ``lcb``: the best mean less one standard error. A tie goes to the earlier arm (candidates
    come in the policy's order of preference, its own choice first), not to legal-move order;
    with ``margin``, the policy's own choice (arm 0) stays unless the pick's mean beats its mean
    by that much."""
    best = 0
    best_score = -1.0
    for arm in range(len(visits)):
        n = visits[arm]
        if not n:
            continue
        mean = totals[arm] / n
        if final == "visits":
            score = float(n) + mean * 1e-3  # equal visits: the better mean
        elif final == "lcb":
            variance = max(squares[arm] / n - mean * mean, 1.0 / (4 * n))
            score = mean - math.sqrt(variance / n)
        else:
            score = mean
        if score > best_score + TIE:
            best, best_score = arm, score
    kept = margin > 0.0 and best != 0 and visits[0] > 0
    if kept and totals[best] / visits[best] < totals[0] / visits[0] + margin:
        return 0
    return best


def _check_choice(name: str, value: str, choices: tuple[str, ...]) -> None:
    """A ValueError naming the option and the value when ``value`` is not one of ``choices``."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(choices)}, not {value!r}")


def _clear_winner(visits: list[int], totals: list[float], squares: list[float]) -> bool:
    """Whether the best mean is ``STOP_Z`` standard errors of the difference above every other
    mean (rewards in [0, 1], per-arm variances from the sums of squares)."""
    arms = len(visits)
    means = [0.0] * arms
    errors = [0.0] * arms
    best = -1
    for arm in range(arms):
        n = visits[arm]
        if n < 2:
            return False
        mean = totals[arm] / n
        variance = max(squares[arm] / n - mean * mean, 1.0 / (4 * n))
        means[arm] = mean
        errors[arm] = variance / n
        if best < 0 or mean > means[best]:
            best = arm
    for arm in range(arms):
        if arm != best:
            gap = means[best] - means[arm]
            if gap <= STOP_Z * math.sqrt(errors[best] + errors[arm]):
                return False
    return True


def _inner_candidates(round_: Round, style: policy.Style) -> list[int]:
    """The moves searched at one of the bot's decisions below the root: the policy's own
    first, suit-equivalent plays merged, cut to the policy's best few."""
    fallback = next_move(round_, style)
    legal = round_.legal_moves()
    if len(legal) == 1 or legal[0] & (GIVE | DISCARD):
        return [fallback]
    moves = merged_moves(legal, fallback, not style.fast_playouts)
    moves = candidate_order(moves, fallback, round_.hands[round_.turn], round_.reversed_now, False)
    return moves[:INNER_CANDIDATES]


def _playout(
    template: Round, hands: list[int], first: int, me: int, style: policy.Style, strict: bool
) -> int:
    """Play ``first`` for ``me``, then finish with the playout policy; the points ``me`` earns
    (R22, :func:`cardverse.bots.playout.play_out`)."""
    return play_out(template, hands, first, me, style, strict)
