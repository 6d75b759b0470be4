"""Post-match analysis (issue 15, part 2): every decision of a finished match (four, two or
three players) judged with every hand known, next to the hard bot's choice from what the seat
knew.

``core.analyse_round`` is a pure function of the match's records; ``exact`` turns the boolean
solver of the race to seven into tricks, wins and kot, ``nexact`` does the same for the games of
two and three players; ``bot`` reads the search's choice and chance; ``jobs`` runs one RQ job per
round and stores the results beside the match; ``cli`` is ``hokm analyze``.
"""
