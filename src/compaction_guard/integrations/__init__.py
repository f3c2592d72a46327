"""Adapters that run the guard inside agent frameworks, each behind its extra.

`langchain` (LangChain 1.x and deepagents middleware, mode `owned`), `openai_agents` (an
Agents SDK `Session`, `owned` or `unobserved`), `pydantic_ai` (a history processor,
`owned`) and `anthropic` (SDK objects, server-side compaction, `BetaToolRunner` and Claude
Code hooks, `reasserted` or `unobserved`). See docs/integrations.md.
"""
