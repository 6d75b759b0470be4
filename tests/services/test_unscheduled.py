"""Bot turns the bot queue did not take (its Redis down) are kept by the gateway's service and
scheduled again (``MatchService.schedule_unscheduled``): while the queue stays down a pass
tries one turn, not every kept one (each try costs a match read), and a turn of a match deleted
meanwhile is dropped, not sent to the queue once it answers."""

from __future__ import annotations

import redis

from services.matches import MatchService
from services.store.memory import MemoryStore


class FlakyQueue:
    """A scheduler whose Redis does not answer while ``down``; counts the tries."""

    def __init__(self) -> None:
        self.down = True
        self.tries = 0
        self.scheduled: list[str] = []

    def schedule(self, match_id: str, seat: int, version: int, *,
                 bots_only: bool = False, humans: tuple[int, ...] = ()) -> None:
        self.tries += 1
        if self.down:
            raise redis.ConnectionError("the queue does not answer")
        self.scheduled.append(match_id)


def test_kept_turns_cost_one_try_a_pass_and_a_deleted_match_is_dropped() -> None:
    store, queue = MemoryStore(), FlakyQueue()
    service = MatchService(store, scheduler=queue)
    service.retry_schedules()
    matches = [service.create(seats=["bot:easy"] * 4)["match_id"] for _ in range(6)]
    assert set(service.unscheduled) == set(matches)  # acknowledged, kept
    queue.tries = 0
    assert service.schedule_unscheduled() == 6
    assert queue.tries == 1  # the queue is still down: the other five wait
    gone = matches[0]
    store._logs.pop(gone)  # the match expired meanwhile (its keys deleted)
    service.load(matches[1])  # (the cache holds the others)
    queue.down = False
    assert service.schedule_unscheduled() == 0
    assert sorted(queue.scheduled) == sorted(matches[1:])  # not the deleted one
