"""segment_rankings and segment_events against a plain-Python re-implementation of the Segment
rules (issue 22) on generated track calls: random users, anonymous visitors who log in between
two searches, pages 0- or 1-based, restarting or absolute, without positions, list views sent
twice, calls delivered twice (the same messageId), list views before any search, and Product
Clicked / Product Added / Order Completed at random delays, attributed 'last' and 'first' within
per-event windows. The oracle walks each user's calls in time order as the README states the
rules; it shares no code with the SQL."""

from __future__ import annotations

import json
import random
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path

import duckdb

T0 = 1_700_000_000
WINDOWS = {"Product Clicked": 600, "Product Added": 3_600, "Order Completed": 86_400}  # seconds


def _calls(seed: int) -> list[dict]:
    """Track calls in Segment's JSON shape, in random order; _second is the time after T0."""
    rng = random.Random(seed)
    calls = []
    for u in range(25):
        anonymous, user = f"a{u}", (f"u{u}" if rng.random() < 0.5 else None)
        login = None  # an anonymous visitor logs in (as L<u>) at the start of a later search
        second, timeline = rng.randint(0, 1_000), []
        if rng.random() < 0.3:  # a list view before any search
            timeline.append((second, "Product List Viewed",
                             {"products": [{"product_id": f"i{rng.randrange(30)}",
                                            "position": 0}]}))
        for n in range(rng.randint(1, 5)):
            second += rng.choice([10, 300, 3_000, 30_000])
            if user is None and login is None and n > 0 and rng.random() < 0.4:
                login = second
            timeline.append((second, "Products Searched", {"query": rng.choice(["a", "b"])}))
            base, absolute, shown, listed = rng.choice([0, 1]), rng.random() < 0.5, 0, []
            for _ in range(rng.randint(1, 3)):
                second += rng.randint(1, 5)
                items, start = rng.sample(range(30), rng.randint(1, 5)), shown if absolute else 0
                unpositioned = rng.random() < 0.2
                page = [{"product_id": f"i{i}", "price": 2.0}
                        | ({} if unpositioned else {"position": start + k + base})
                        for k, i in enumerate(items)]
                shown += len(items)
                listed += [f"i{i}" for i in items]
                timeline.append((second, "Product List Viewed", {"products": page}))
                if rng.random() < 0.2:  # sent twice (another message)
                    timeline.append((second + 1, "Product List Viewed", {"products": page}))
            for _ in range(rng.randint(0, 3)):
                name = rng.choice(list(WINDOWS))
                at = second + rng.randint(1, rng.choice([1, 300, 900, 4_000, 100_000]))
                item = rng.choice(listed) if rng.random() < 0.8 else f"i{rng.randrange(30)}"
                props = ({"order_id": f"o{at}", "products": [{"product_id": item, "price": 2.0}]}
                         if name == "Order Completed" else {"product_id": item, "price": 2.0})
                timeline.append((at, name, props))
        for at, name, props in timeline:
            who = f"L{u}" if login is not None and at >= login else user
            calls.append({"type": "track", "event": name, "userId": who,
                          "anonymousId": anonymous, "messageId": f"m{len(calls)}",
                          "timestamp": datetime.fromtimestamp(T0 + at, UTC).strftime(
                              "%Y-%m-%dT%H:%M:%S.000Z"), "_second": at, "properties": props,
                          "context": {"device": {"type": "mobile"}}})
            if rng.random() < 0.05:  # delivered twice: the same message
                calls.append(dict(calls[-1]))
    rng.shuffle(calls)
    return calls


def _oracle(calls: list[dict], attribution: str) -> tuple[list, list]:
    """(rankings, events): sorted lists of (query, item, position) and
    (query, item, event_name, position)."""
    calls = list({c["messageId"]: c for c in calls}.values())  # one per message
    by_user = defaultdict(list)
    for c in calls:
        by_user[c["userId"] or c["anonymousId"]].append(c)
    rankings, showings = [], defaultdict(list)  # showings[(user, item)] = [(second, q, pos)]
    for user, own in by_user.items():
        searches: list[tuple[int, list]] = []  # (second, pages)
        for c in sorted(own, key=lambda c: (c["_second"], c["event"] != "Products Searched")):
            if c["event"] == "Products Searched":
                searches.append((c["_second"], []))
            elif c["event"] == "Product List Viewed" and searches:
                page = [(p["product_id"], p.get("position")) for p in c["properties"]["products"]]
                if all(page != earlier for _, earlier in searches[-1][1]):
                    searches[-1][1].append((c["_second"], page))
        for start, pages in searches:
            query = f"{user}/{(T0 + start) * 1_000_000}"
            positioned = [pos for _, page in pages if all(x is not None for _, x in page)
                          for _, pos in page]
            base = 0 if positioned and min(positioned) == 0 else 1
            furthest = 0  # the largest absolute position shown so far in the search
            for second, page in pages:
                if any(x is None for _, x in page):
                    on_page = list(range(1, len(page) + 1))
                else:
                    on_page = [x + 1 - base for _, x in page]
                shift = 0 if min(on_page) > furthest else furthest
                furthest = max(furthest, shift + max(on_page))
                for (item, _), position in zip(page, on_page):
                    rankings.append((query, item, position + shift))
                    showings[user, item].append((second, query, position + shift))
    events = []
    for c in calls:
        if c["event"] not in WINDOWS:
            continue
        props = c["properties"]
        for product in props.get("products", [props]):
            item, now = product["product_id"], c["_second"]
            seen = {c["userId"] or c["anonymousId"], c["anonymousId"]}
            inside = sorted(s for who in seen for s in showings[who, item]
                            if now - WINDOWS[c["event"]] <= s[0] <= now)
            if inside:
                _, query, position = inside[-1] if attribution == "last" else inside[0]
                events.append((query, item, c["event"], position))
    return sorted(rankings), sorted(events)


def test_matches_the_python_oracle(con: duckdb.DuckDBPyConnection, check_cases,
                                   tmp_path: Path) -> None:
    windows = ", ".join(f"'{n}': INTERVAL {s} SECOND" for n, s in WINDOWS.items())

    def check(seed: int) -> None:
        calls = _calls(seed)
        path = tmp_path / f"tracks_{seed}.ndjson"
        with path.open("w", encoding="utf-8") as out:
            for c in calls:
                out.write(json.dumps({k: v for k, v in c.items() if k != "_second"}) + "\n")
        con.execute(f"CREATE OR REPLACE TABLE tracks AS FROM read_json('{path}')")
        for attribution in ("last", "first"):
            rankings, events = _oracle(calls, attribution)
            got = sorted(con.sql("SELECT query_id, item_id, position "
                                 "FROM segment_rankings('tracks')").fetchall())
            assert got == rankings
            got = sorted(con.sql("SELECT query_id, item_id, event_name, position FROM "
                                 f"segment_events('tracks', attribution := '{attribution}', "
                                 f"attribution_window := MAP {{{windows}}})").fetchall())
            assert got == events, attribution
            assert len(events) > 10 and len(rankings) > 100  # the seed exercises the rules

    check_cases((f"seed {seed}", lambda seed=seed: check(seed)) for seed in (1, 2))
