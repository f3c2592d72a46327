"""The README receipt example: seal a receipt, verify it, catch a lying compactor."""

from compaction_guard.receipt import CompactionReceipt, item_digest, verify_chain, verify_receipt

pre = [
    {"role": "system", "content": "You are a support agent."},
    {"role": "user", "content": "What's the refund window?"},
    {"role": "assistant", "content": "30 days from delivery."},
    {"role": "user", "content": "Wire the refund to account 1234-5678."},
]
post = [pre[0], {"role": "assistant", "content": "Summary: refunds within 30 days."}]

receipt = CompactionReceipt.open(pre)       # digests every item and the whole
receipt.record_kept(post)                   # dropped = pre minus post, as a multiset
row = receipt.seal("receipts.jsonl", compactor="summarizer-v2", method="llm-summary")

print({k: row[k] for k in ("pre", "post", "introduced")})
print(row["dropped"]["count"], row["dropped"]["bytes"])
print(item_digest(pre[3]) in row["dropped"]["items"])     # hash what you hold, find it
print(verify_receipt(row))
print(verify_receipt(row, pre, post)["content"])

# A compactor that claims it kept everything, but shipped one message less:
liar = CompactionReceipt.open(pre)
liar.record_kept(pre)
lie = liar.seal("receipts.jsonl", compactor="liar", method="llm-summary")
print(verify_receipt(lie)["ok"])                          # the claim alone is consistent
print(verify_receipt(lie, pre, pre[:3])["notes"][1])      # content exposes it

report = verify_chain("receipts.jsonl")
print(report.ok, report.rows, report.scope)
