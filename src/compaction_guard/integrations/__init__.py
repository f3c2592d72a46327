"""Adapters that run the guard inside agent frameworks, each behind its extra.

`langchain` (LangChain 1.x middleware, mode `owned`), `openai_agents` (an Agents SDK
`Session`, `owned` or `unobserved`) and `anthropic` (server-side compaction and Claude
Code hooks, `reasserted` or `unobserved`). See docs/integrations.md.
"""
