"""The provider wire formats (OpenAI chat, OpenAI Responses, Anthropic), each described once.

`formats` is the table (names, roles, part and item types, how to recognise a list),
`sdk_blocks` reads Anthropic SDK objects as the params they send as, and `pairing` groups
tool calls with their results. The codec and group_trim both read them; see
docs/DESIGN.md, "Wire formats".
"""
