"""Episodes: a recalled entry brings the entry its task wrote next.

Owns: ``followed``, which gives each of a snapshot's best candidates' next
entry in its episode a share of that candidate's score, and ``FOLLOWERS``,
the index a store keeps for it.

Why. In a conversation stored one turn an entry, the answer seldom repeats
the question: the turn the question matches is the other person's ("where
did you spend the holidays?"), and the answer is the entry written next
("at my parents' in Cornwall"). An entry's episode is what one agent task
wrote (``entries.episode``, a keyed hash of the task's id, set by the
daemon on an agent's write in a task): a run's turns, in the order they
were written (a proposal the operator approves later keeps the moment the
task proposed it, ``entries.proposed_at``, whatever order approvals come
in). So a candidate passes ``SHARE`` of its score to the entry its
task wrote next in its namespace; an entry both matched and followed adds
the two. Notes the operator writes, or an agent writes outside a task,
belong to no episode and follow nothing. No text moves between entries
(nothing is indexed twice, nothing to destroy when either goes); the
relation is read at each recall from what the store holds.

Invariants:
- a follower is read through the caller's own filter (``where``): it is
  in the caller's view, active and unexpired, or it is not added;
- only an entry of the candidate's own namespace (owner, target, scope) and
  episode follows it, so another owner's, another scope's or another
  task's writes never move a ranking, however they interleave in time;
  and the look-up seeks it through ``FOLLOWERS`` without reading them;
- the order is total and stable: score descending, then id.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from memoryd.daemon.retrieval import search

if TYPE_CHECKING:
    from memoryd.daemon.storage.txn import Tx

# The share of a candidate's score its follower gets: half, so a follower
# never passes the entry that brought it unless it matches the query too.
SHARE = 0.5
# How many of the best candidates bring their follower: the snapshot's cards
# come from the top of the list, and each costs one index seek.
FOLLOWED = 40


def written(alias: str = "") -> str:
    """When the task wrote an entry (``alias``: its table's, with the dot):
    when it proposed it, for one a later approval applied (an operator
    approves in any order), else when it was stored. The index and the
    look-up spell it alike, so the planner seeks on it."""
    return f"coalesce({alias}proposed_at, {alias}created_at)"


# The index each store keeps for the look-up: an episode's entries of one
# namespace in the order they were written. The namespace is in the key, so
# the look-up seeks the one entry it wants: what the task wrote in between
# elsewhere (another owner's namespace, a private scope) is never read, and
# how much there is moves neither the answer nor the time it takes.
FOLLOWERS = ("CREATE INDEX IF NOT EXISTS entries_episode"
             " ON entries(episode, owner, target, scope, " + written() + ", id)"
             " WHERE status = 'active' AND episode IS NOT NULL")

# For each candidate id of an episode: the next active entry of its
# namespace and episode, by (when written, id).
_NEXT = (
    "WITH c(episode_candidate) AS (SELECT value FROM json_each(?))"  # noqa: S608 (our own column names)
    " SELECT p.id AS prev, (SELECT n.id FROM entries AS n"
    " WHERE n.episode = p.episode AND n.status = 'active'"
    " AND (" + written("n.") + ", n.id) > (" + written("p.") + ", p.id)"
    " AND n.owner = p.owner AND n.target = p.target AND n.scope = p.scope"
    " ORDER BY " + written("n.") + ", n.id LIMIT 1) AS next"
    " FROM c CROSS JOIN entries AS p"
    " WHERE p.id = c.episode_candidate AND p.episode IS NOT NULL")


def followed(tx: Tx, rows: list[dict[str, Any]], where: str, args: tuple[Any, ...],
             columns: tuple[str, ...]) -> list[dict[str, Any]]:
    """``rows`` (best first, each with ``score``) with the followers of the
    best ``FOLLOWED`` of them added or lifted, best first again. ``where``
    on ``e`` is the caller's filter; ``columns`` what each row holds."""
    leading = [r for r in rows[:FOLLOWED] if r["score"] > 0]
    if not leading:
        return rows
    score = {r["id"]: r["score"] for r in leading}
    links = [(r["prev"], r["next"])
             for r in tx.all(_NEXT, (json.dumps(list(score)),)) if r["next"] is not None]
    if not links:
        return rows
    # A follower among the rows was read through the filter already; the
    # others are read through it now, and one it refuses is not added.
    by_id = {r["id"]: r for r in rows}
    search.read_rows(tx, sorted({nxt for _, nxt in links}), where, args, columns, by_id)
    lifted: dict[str, float] = {}
    for prev, nxt in links:
        if nxt in by_id:
            lifted[nxt] = lifted.get(nxt, 0.0) + SHARE * score[prev]
    if not lifted:
        return rows
    for entry_id, extra in lifted.items():
        row = by_id[entry_id]
        row["score"] = round(row.get("score", 0.0) + extra, 9)
    return sorted(by_id.values(), key=lambda r: (-r["score"], r["id"]))
