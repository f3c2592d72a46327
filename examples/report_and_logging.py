"""What a person reads (`print(report)`) and what a log pipeline gets (the logger)."""

import logging
import sys

import compaction_guard as cg

# The library only adds a NullHandler; the application decides where records go.
logging.basicConfig(stream=sys.stdout, format="%(levelname)s %(name)s: %(message)s")
logging.getLogger("compaction_guard").setLevel(logging.INFO)

guard = cg.Guard([
    "The database orders_prod is production. Read-only queries only.",
    "The budget cap for this run is $500.",
])
guard.add("Reply to the client in formal English.", severity=cg.Severity.WARN)

messages = [
    {"role": "system", "content": "You are a data analysis agent."},
    {"role": "user", "content": "orders_prod is production, read-only. Budget cap $500."},
]
messages = guard.compact(messages, compactor=lambda history: [
    history[0], {"role": "user", "content": "Summary: investigating a data issue in orders_prod."},
])

print(guard.last_report)  # str(report) is report.summary()
