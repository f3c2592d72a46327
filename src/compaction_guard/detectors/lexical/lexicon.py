"""Word lists the lexical layer reads: function words, light words, synonyms, antonyms.

All lists are general English and general engineering vocabulary; none is tuned to one
corpus. Words are stored as `normalize.stem` stems.
"""

from __future__ import annotations

from compaction_guard.normalize import stem

__all__ = [
    "ANAPHORS",
    "ANTONYMS",
    "CONDITIONALS",
    "GENERIC",
    "GENERIC_RULE_NOUNS",
    "LIGHT",
    "LIGHT_NOUNS",
    "MOTION",
    "ONLY_WORDS",
    "OPPOSITE_ACTS",
    "PHRASES",
    "READ_VERBS",
    "RELATIONS",
    "REPORTING",
    "RULE_NOUNS",
    "STOPWORDS",
    "SUBORDINATORS",
    "WRITE_VERBS",
    "concept",
    "derived",
]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


def _stems(words: str) -> frozenset[str]:
    return frozenset(stem(word) for word in words.split())


# Function words: never content, and insignificant when a near-verbatim copy drops one.
STOPWORDS = frozenset(
    _words(
        """
        a an the this that these those is are was were be been being am it its it's of and
        or but so than then there here their they them we us our you your i me my he she his
        her him who whom which what whose will would do does did done doing has have had
        having also too very just such up down out off yet both either etc e.g i.e same own
        let lets let's please kindly s t as any own whether how why where when else other
        others anyone anybody anything nobody someone somebody something everybody once i've
        i'm i'd i'll we've we're we'll we'd you're you've you'll it's that's there's they're
        they've he's she's what's here's though although however anyway rather instead
        because actually really basically simply merely more less just even
        """,
    ),
) | frozenset(
    # Prepositions are function words for topic and coverage, but a near-verbatim copy
    # must keep them: "from staging to prod" is not "from prod to staging".
    _words(
        """
        to from into onto in on at for by with within without before after during until
        since over under above below between except per through across outside inside via
        against toward towards about like upon
        """,
    ),
)
RELATIONS = frozenset(
    _words(
        """
        to from into onto in on at for by with within without before after during until
        since over under above below between except per through across outside inside via
        against toward towards and or nor not no
        """,
    ),
)
# Words that report or frame a rule without changing it ("the user said", "key decision").
LIGHT = _stems(
    """
    user users agent assistant model we you i team said says say asked asks ask told tell
    tells instructed instruction instructions wants want wanted insisted
    specified stated stressed emphasized emphasised mentioned noted note notes reminder
    remind reminded remember important importantly key decision decisions constraint
    constraints rule rules requirement guardrail guardrails agreed confirmed clarified
    explicitly still continue continues remain remains stay stays currently now going
    forward already previously earlier established per according session task
    conversation context summary again set clear clearly reiterated reiterate repeated
    standing firm hard policy policies directive explicit throughout overall current
    across summary summarized summarised recap recapped background status update later
    subsequently afterwards today yesterday recently initially originally since then
    carried in-force effect place keep keeps kept use uses using
    used run runs running ran perform performed happen happens occur occurs appear appears
    go goes get gets done treat treated regard regarded absolutely ever
    """,
)
# The nouns among the light words. On their own they frame a rule ("this session", "the
# team"), but fastened before a rule noun they name a kind of it ("session tokens", "user
# accounts", "status replies"): a narrower scope, never free.
LIGHT_NOUNS = _stems(
    """
    user users agent agents assistant model models team teams session sessions task tasks
    conversation context summary status update updates background instruction reminder
    note notes decision constraint requirement guardrail policy directive
    """,
)
# Verbs that report who stated a rule; whoever comes before them frames the rule.
REPORTING = _stems(
    """
    said says say told tells asked asks wants wanted insisted insists noted notes stated
    states confirmed confirms mentioned mentions explained reminded requested decided
    agreed specified stressed emphasized emphasised clarified warned instructed
    reiterated repeated added
    """,
)
RULE_NOUNS = _stems(
    """
    rule constraint restriction requirement policy limit cap ban prohibition instruction
    guideline guardrail condition directive mandate freeze block lock cap budget ceiling
    quota maximum
    """,
)
# Rule nouns that name no rule of their own ("the rule", "that policy"): the closed world
# reads a sentence holding one on every rule's topic (`index.RULE`, `world._unnamed_lift`).
GENERIC_RULE_NOUNS = _words(
    """
    rule constraint restriction requirement policy prohibition instruction guideline
    guardrail directive mandate
    """,
)
# Words that open a subordinate clause: a clause they open frames the rule next to it.
SUBORDINATORS = frozenset(
    {"if", "unless", "when", "whenever", "where", "wherever", "while", "as", "provided", "so"},
)
ONLY_WORDS = frozenset(
    {"other", "else", "besides", "outside", "anything", "except", "another", "anyone", "elsewhere"},
)
# Subordinators that set a condition on the clause they lead up to.
CONDITIONALS = frozenset({"if", "unless", "when", "whenever", "where", "wherever", "while"})
# With their contractions, which the window keeps as one token: "That's a guideline".
ANAPHORS = frozenset(
    {"this", "that", "it", "these", "those", "which", "such"}
    | {f"{p}'{c}" for p in ("this", "that", "it") for c in ("s", "ll", "d")},
)
WRITE_VERBS = _stems(
    """
    write writes writing written modify modifies modifying modified update updates updating
    updated insert inserts inserting delete deletes deleting deleted mutate mutation alter
    alters altered change changes changing changed drop dropping truncate edit edits
    editing edited upsert create creates creating ddl dml migration migrations
    """,
)
READ_VERBS = _stems("read reads reading select selects query queries querying")

_GROUPS = (
    "prod production live",
    "staging stage preprod pre-prod",
    "dev development",
    "env environment",
    "db database datastore",
    "repo repository codebase",
    "config configuration settings conf",
    "admin admins administrator administrators administrative administration",
    "cred creds credential credentials secret secrets",
    "delete remove erase purge wipe destroy drop discard",
    "modify change alter edit update mutate",
    "share disclose expose reveal leak divulge",
    "deploy deployment deploys release releases ship rollout roll-out launch",
    "approve approval approvals sign-off signoff authorization authorisation authorize",
    "approve authorise greenlight green-light",
    "run execute invoke",
    "use utilize utilise employ leverage target targets targeting targeted",
    "spend spending budget cost costs expense expenses expenditure outlay",
    "customer customers client clients",
    "pii personal",
    "email e-mail mail",
    "log logs logging logged",
    "capture collect gather",
    "track tracked tracking",
    "mask redact obfuscate scrub",
    "anonymize anonymise anonymized anonymised",
    "pseudonymize pseudonymise pseudonymized pseudonymised",
    "store save persist retain retention",
    "request requests call calls req",
    "retry retries reattempt attempt attempts",
    "notify alert inform",
    "page paging paged",
    "encrypt encryption encrypted",
    "message messages msg",
    "document doc docs documentation",
    "server host machine instance",
    "folder directory dir",
    "test tests testing",
    "vendor vendors supplier suppliers provider providers",
    "invoice bill charge charges",
    "purchase buy",
    "password passphrase",
    "timeout time-out",
    "concurrent concurrency parallel simultaneous",
    "reply respond response answer",
    "contact reach",
    "week weekly",
    "day daily",
    "month monthly",
    "hour hourly",
    "year yearly annual annually",
    "external third-party",
    "transfer move",
    "backup backups",
    "snapshot snapshots",
    "access accessing accessed",
    "fund funds money",
    "refund refunds reimburse reimbursement",
    "card cards",
    "large larger largest big bigger biggest",
    "small smaller smallest little",
    "include contain",
    "send deliver delivery post announce publish",
    "stop halt cease",
    "start begin commence",
    "check verify validate",
    "error errors failure failures",
    "flag toggle",
    "show display render",
    "upgrade bump",
    "pin lock",
    "review reviews reviewer reviewers",
    "dependency dependencies package packages library libraries",
    "expire expiry expiration",
    "freeze frozen",
    "raise increase increased increasing",
)
# Word sequences that say one thing ("at the same time" is "concurrent"); the first
# word carries the concept, the rest carry nothing.
_PHRASE_GROUPS = (
    ("concurrent", "at the same time, in parallel, simultaneously, at once"),
    ("approve", "sign off, signs off, signed off, signing off"),
    ("deploy", "roll out, rolls out, rolled out, go live, goes live, push to production"),
    ("delete", "get rid of, throw away"),
    ("consecutive", "in a row, back to back, back-to-back"),
    ("approve", "approving review, approving reviews, approved review, approved reviews"),
    ("send", "go to, goes to, went to, gone to"),
    ("pin", "fixed at, fixed to, held at, hold at, frozen at, locked at, locked to"),
    # Fillers that say nothing about the rule.
    ("", "for example, for instance, such as, come back, comes back, came back"),
    ("", "in every case, in any case, in each case, across the board, in short, in summary"),
    ("", "in brief, in other words, for the record, for context, for reference, to be clear"),
    ("", "to clarify, as a reminder, to summarize, to summarise, to recap, in a nutshell"),
    ("", "end up, ends up, ended up"),
)
_CONCEPTS: dict[str, str] = {}
for _group in _GROUPS:
    _members = _group.split()
    for _word in _members:
        _CONCEPTS.setdefault(stem(_word), stem(_members[0]))


PHRASES: dict[tuple[str, ...], str] = {}
for _head, _sequences in _PHRASE_GROUPS:
    for _sequence in _sequences.split(","):
        PHRASES[tuple(_sequence.split())] = _CONCEPTS.get(stem(_head), stem(_head)) if _head else ""


def concept(word_stem: str) -> str:
    """Return the synonym group of a stem (its first member), or the stem itself."""
    return _CONCEPTS.get(word_stem, word_stem)


# Derivational endings of a stem and what replaces them: an adjective in -ous names the
# noun it derives from ("religious", "dangerous"), an agent noun or an action noun in
# -izer / -ization names its verb ("authorizers", "sanitization"). Endings whose words
# often drift from their root ("-ive": executive, objective; "-er": charger, locker;
# "-ity": priority) are not read.
_DERIVATIONS = (
    ("izer", "iz"),
    ("iser", "is"),
    ("izat", "iz"),
    ("isat", "is"),
    ("ious", ""),
    ("ous", ""),
)
_MIN_ROOT = 4


def derived(word_stem: str) -> str:
    """Return the root a derived stem shares with its base word, or the stem itself.

    "religious" and "religion" read "relig"; "authorizers" reads "authoriz", which the
    synonym groups know as "authorize". The root must keep four letters.
    """
    for ending, replacement in _DERIVATIONS:
        if word_stem.endswith(ending):
            root = word_stem[: len(word_stem) - len(ending)] + replacement
            return root if len(root) >= _MIN_ROOT else word_stem
    return word_stem


# Head nouns that name a kind of thing; "orders_prod database" says no more than
# "orders_prod", so a paraphrase may add one.
GENERIC = frozenset(
    concept(word)
    for word in _stems(
        """
        database db table tables service system environment env account file folder
        directory repository repo channel server cluster bucket instance endpoint api
        project tool data value amount number setting option flag branch region zone
        resource record item process job thing access version total overall old older age
        aged usage runtime interpreter level traffic volume count place workload kind sort
        region regions datacenter datacentre center centre border borders territory
        window period
        """,
    )
)
# Verbs of motion toward a bound ("must never drop below 14"): part of the bound.
MOTION = frozenset(
    _words(
        """
        drop drops dropped dropping fall falls fell falling dip dips dipped go goes went
        going rise rises rose rising climb climbs climbed grow grows grew sink sinks sank
        get gets got
        """,
    ),
)
# Opposite sides of a relation: swapping one for the other reverses a statement outright
# ("before 9am" and "after 9am"), so such a swap is an explicit reversal.
_RELATIONS = (
    ("inside within", "outside beyond"),
    ("before earlier", "after later"),
    ("above", "below"),
    ("more greater higher", "less fewer lower"),
    ("increase raise", "decrease reduce"),
    ("public", "private"),
    ("internal", "external"),
    ("earliest", "latest"),
    ("allowlist whitelist", "denylist blacklist"),
    ("signed verified authenticated", "unsigned unverified unauthenticated"),
    ("encrypted", "unencrypted plaintext"),
    ("masked redacted", "unmasked unredacted"),
)
# Opposite acts: a swap only turns the polarity over, so "keep for at least 30 days" and
# "must not delete before 30 days" agree; on its own it decides nothing.
_ACTS = (
    ("keep retain store save preserve persist", "delete remove purge discard erase destroy wipe"),
    ("stay remain", "leave exit"),
    ("include", "exclude omit"),
    ("enable", "disable"),
    ("accept approve", "reject decline"),
    ("show display expose reveal unmask", "hide conceal mask redact"),
    ("encrypt", "decrypt"),
    ("lock", "unlock"),
    ("start begin continue resume run proceed", "stop halt pause abort terminate cancel"),
)


def _opposites(pairs: tuple[tuple[str, str], ...]) -> dict[str, frozenset[str]]:
    table: dict[str, frozenset[str]] = {}
    for left, right in pairs:
        one, other = _stems(left), _stems(right)
        for word in one:
            table[word] = table.get(word, frozenset()) | other
        for word in other:
            table[word] = table.get(word, frozenset()) | one
    return table


ANTONYMS = _opposites(_RELATIONS)
OPPOSITE_ACTS = _opposites(_ACTS)
