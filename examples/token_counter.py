"""One token counter for the block budget and compact(max_tokens=): tiktoken when it can run."""

import json

import compaction_guard as cg


def text_of(message: object) -> str:
    return message if isinstance(message, str) else json.dumps(message, ensure_ascii=False)


try:
    import tiktoken  # not a dependency of compaction-guard: pip install tiktoken

    # The first call downloads the encoding; offline that fails unless it is already in
    # tiktoken's cache (TIKTOKEN_CACHE_DIR), and the fallback below takes over.
    encoding = tiktoken.get_encoding("o200k_base")

    def count_tokens(message: object) -> int:
        return len(encoding.encode(text_of(message)))

except (ImportError, OSError) as exc:
    print(f"tiktoken cannot run here ({type(exc).__name__}); counting words instead")

    def count_tokens(message: object) -> int:
        return len(text_of(message).split())


guard = cg.Guard(["The budget cap for this run is $500."], count_tokens=count_tokens)
messages = [{"role": "system", "content": "You are a data analysis agent."}]
for day in ("Monday", "Tuesday", "Wednesday", "Thursday"):
    messages += [
        {"role": "user", "content": f"Summarise the {day} export; the budget cap is $500."},
        {"role": "assistant", "content": f"The {day} export has 40 rows and no gaps."},
    ]
messages = guard.compact(messages, compactor=lambda history: history, max_tokens=90)

report = guard.last_report
print(f"{report.tokens_before} -> {report.tokens_after} tokens (fits: {report.fits})")
for message in messages:
    print(f"  {message['role']:9} {count_tokens(message):3}  {message['content'][:46]}".rstrip())
