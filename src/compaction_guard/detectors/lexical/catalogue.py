"""The catalogue of the lexical tier: every rule by its stable id, and the verdict's precedence.

`RULES` is the one list of rules: the `decided_by` id, the kinds it may issue (none for a
guard that only keeps a copy from certifying, or for an equivalence that lets a wording
count as the rule's own), the function, a one-line statement and the
verdict fixture that needs it. docs/lexical-rules.md is generated from it
(`python docs/lexical_rules.py`).
"""

# The catalogue names each rule's function, most of them private to their module, and keeps
# one rule's statement and example on one line each.
# ruff: noqa: SLF001, E501

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from compaction_guard.detectors.lexical import (
    acts,
    adjunct,
    align,
    context,
    damage,
    detector,
    modality,
    modifiers,
    mutation,
    restate,
    roles,
    rules,
    slot,
    text,
    world,
)
from compaction_guard.taxonomy import Kind

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["PRECEDENCE", "RULES", "Rule", "rule_ids"]

_C, _W, _M = Kind.CONTRADICTED, Kind.WEAKENED, Kind.MUTATED


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule: `id` is its `decided_by` (`lexical.<name>`); `example` a verdict fixture."""

    id: str
    kinds: frozenset[Kind]
    function: Callable[..., object]
    statement: str
    example: str

    @property
    def name(self) -> str:
        """The id without the layer: what `switches.switched_off` takes."""
        return self.id.removeprefix("lexical.")


def _r(
    name: str, kinds: set[Kind], function: Callable[..., object], statement: str, example: str
) -> Rule:
    return Rule(f"lexical.{name}", frozenset(kinds), function, statement, example)


RULES: tuple[Rule, ...] = (
    # Certifying rules: a copy, or a restatement in other words.
    _r(
        "verbatim",
        {Kind.PRESERVED},
        rules._verbatim,
        "The rule's tokens stand contiguous and nothing around them changes it.",
        "preserved/issue_9_measurement_of_another_thing",
    ),
    _r(
        "near_verbatim",
        {Kind.PRESERVED},
        rules._near_verbatim,
        "Every significant word in order; only function words, contractions and value spellings differ.",
        "paraphrased/realistic_a035_maintenance_window_ends_at",
    ),
    _r(
        "paraphrase",
        {Kind.PARAPHRASED},
        rules._paraphrase,
        "All content, values, names and force in one window, in other words and in order (synonyms, clippings, derived forms: 'religious' for 'religion'; each piece of a compound: 'AGPL-licensed').",
        "paraphrased/issue_9_no_other_choice_is_not_a_permission",
    ),
    # Guards: any of them keeps a window from certifying.
    _r(
        "force_differs",
        set(),
        rules._force_differs,
        "Polarity, opposite words, an added hedge, condition, permission or bound keep a copy from certifying.",
        "mutated/bound_added_to_a_boundless_count_is_not_certified",
    ),
    _r(
        "negations_dropped",
        set(),
        damage.negations_dropped,
        "A doubly negated rule ('do not X without C') restated with no negation certifies only as an obligation whose object is its condition ('every DELETE must include a WHERE clause'); 'X must be done before C' keeps the count, not the meaning.",
        "unverifiable/negations_dropped_obligation_to_act",
    ),
    _r(
        "values_differ",
        set(),
        rules._values_differ,
        "A value missing from the window, or one the rule does not have, keeps it from certifying.",
        "mutated/issue_9_currency_dropped",
    ),
    _r(
        "progress_reading",
        set(),
        rules._progress_reading,
        "Equivalence: a clause of its own reading a level reached inside the rule's bound ('(currently at $412.50)', '12 used so far') is no value of the rule; past the bound, bare ('currently $600'), with 'now' or beside another value of the slot it still differs.",
        "paraphrased/progress_reading_within_the_cap",
    ),
    _r(
        "unit_dropped",
        set(),
        rules._unit_dropped,
        "A bare number for a value with a unit or currency is not that value.",
        "mutated/issue_9_currency_dropped_from_a_cap",
    ),
    _r(
        "relation_changed",
        set(),
        rules._relation_changed,
        "A time value keeps its relation word: 'during 30 days' is not 'after 30 days', 'after 90 days' not 'every 90 days'.",
        "unverifiable/issue_9_time_relation_during_for_after",
    ),
    _r(
        "slots_swapped",
        set(),
        rules._slots_swapped,
        "Two values of one dimension, or two names, keep their slots (swaps and reversed ranges).",
        "mutated/issue_9_range_written_backwards",
    ),
    _r(
        "modifiers_moved",
        set(),
        modifiers.modifiers_moved,
        "Each modifier keeps the noun it premodifies: 'public builds in the signed registry' is not 'signed builds in the public registry', though every word matches; the noun phrases may come in any order ('in the public registry, keep signed builds').",
        "mutated/modifiers_moved_adjectives_swapped_between_nouns",
    ),
    _r(
        "roles_exchanged",
        set(),
        roles.roles_exchanged,
        "Who does the act and what it is done to keep their sides of the force word, or both move across it (a passive); 'managers may not approve staff expenses' is not 'staff may not approve their own expenses', and an agent after 'by' keeps its party and its act ('proposed by the app team').",
        "unverifiable/roles_exchanged_actor_becomes_the_owner",
    ),
    _r(
        "scope_moved",
        set(),
        rules._scope_moved,
        "A word moved across a contrast ('X, not Y' read as 'Y, not X').",
        "contradicted/issue_9_terms_swapped_around_not",
    ),
    _r(
        "prefix_negated",
        set(),
        rules._prefix_negated,
        "A negating prefix ('non-', 'un-') on a rule word is not the word.",
        "mutated/issue_9_negating_prefix",
    ),
    _r(
        "keyword_swapped",
        set(),
        rules._keyword_swapped,
        "One SQL statement aligned with another (DROP for DELETE) is another act.",
        "mutated/issue_9_delete_read_as_drop",
    ),
    _r(
        "reader_motion",
        set(),
        rules._reader_motion,
        "A 'go' read as the rule's act of placing something needs a rule word as its subject ('notices go to #deploys'); 'Go to #deploys for notices' or 'we go to ...' is someone going there ('go through' is the rule's way).",
        "unverifiable/reader_motion_go_to_channel_for_notices",
    ),
    _r(
        "compound_pieces",
        set(),
        rules._compound_pieces,
        "A hyphenated word holding a rule word says it only when its other pieces are the rule's neighbouring words ('orders-database', 'AGPL-licensed' for 'licensed under AGPL'); a piece the rule lacks ('legacy-orders') or a rule word from elsewhere ('night-orders database', 'rest-customer data') names another thing.",
        "unverifiable/compound_pieces_rule_word_from_elsewhere",
    ),
    _r(
        "repeated_modifier",
        set(),
        rules._repeated_modifier,
        "A rule word, name or value said once more than the rule says it, fastened to a rule noun the rule leaves bare, before it or in a phrase after it ('EU data must not leave the EU', 'data from the EU', 'Store eu-west-1 data only in eu-west-1'), picks a kind of that noun; 'live production database' (one key twice in a row) is one phrase.",
        "unverifiable/repeated_modifier_region_before_the_subject",
    ),
    _r(
        "extra_identifier",
        set(),
        rules._extra_identifier,
        "A name inside the restatement that the rule lacks ('... or /tmp') widens it; a possessive name names the word after it ('bastion-03's agent').",
        "weakened/issue_9_alternative_inside_paraphrase",
    ),
    _r(
        "generic_lost",
        set(),
        rules._generic_lost,
        "A generic noun of the rule that is a list item, or was replaced by another, must be there.",
        "mutated/issue_9_generic_scope_noun_replaced",
    ),
    _r(
        "light_noun_lost",
        set(),
        rules._light_noun_lost,
        "A framing noun that is the rule's object ('from users', 'user passwords') must be there.",
        "unverifiable/probe_light_noun_team_swapped",
    ),
    _r(
        "every_other",
        set(),
        rules._every_other,
        "'every other', 'every second', 'every few' where the rule says 'every' thins its frequency: never certified.",
        "unverifiable/probe_every_other_night_for_every_night",
    ),
    _r(
        "value_transition",
        set(),
        rules._value_transition,
        "A value moved from ('went from 3 to 5', 'rose 3 to 5') is an event, not the range the rule keeps.",
        "unverifiable/value_transition_go_from_in_the_present",
    ),
    _r(
        "extra_content",
        set(),
        rules._extra_content,
        "A content word in the rule's clauses that the rule lacks is a qualifier, and so is a light or generic noun fastened before a rule noun ('session tokens', 'database backups') or dividing the rule's quantity ('per user', 'for each agent').",
        "paraphrased/para2_d_job_stop_hours_words",
    ),
    _r(
        "adjunct",
        set(),
        adjunct.is_adjunct,
        "With every rule word matched, an extra word fastened to none of them may only restate: a measure noun after the rule's value with its relation kept ('on a 60-day cycle'), a closing 'first', 'include' for 'without'.",
        "paraphrased/issue_9_adjunct_measure_noun_after_value",
    ),
    _r(
        "aspect_label",
        set(),
        adjunct.aspect_label,
        "Equivalence: an aspect noun ('rate', 'retention', 'formatting') in a clause of only the rule's own words and values names what the rule sets ('GitHub rate: ...'); 'burst rate', 'retention target' stay extra.",
        "paraphrased/aspect_label_rate_names_the_subject",
    ),
    _r(
        "emphatic_idiom",
        set(),
        adjunct.emphatic_idiom,
        "Equivalence: the second word of an emphatic idiom ('every single', 'any given', 'any one') only stresses the quantifier; 'single tenants', 'a given region', 'for one tenant' keep their meaning.",
        "paraphrased/emphatic_every_single_restates_each",
    ),
    _r(
        "name_gloss",
        set(),
        adjunct.name_gloss,
        "Equivalence: the phrase right before the rule's identifier in parentheses glosses it ('the Frankfurt region (eu-central-1)'); a word outside that phrase, or two names in the parenthesis, are read as usual.",
        "paraphrased/gloss_words_before_a_parenthesized_name",
    ),
    _r(
        "rule_word_compound",
        set(),
        rules._rule_word_compound,
        "Equivalence: a hyphenated word made only of the rule's own words ('smoke-tested' for 'smoke tests') says them again; a piece the rule lacks ('stress-tested') leaves it extra.",
        "paraphrased/compound_of_rule_words_restates_them",
    ),
    _r(
        "container_extent",
        set(),
        rules._container_extent,
        "Equivalence: an extent noun after a container noun after the rule's path ('the /var/lib/reports/ directory tree') is the path with all under it; 'archive tree' is a part of it.",
        "paraphrased/container_extent_directory_tree_after_a_path",
    ),
    _r(
        "count_consequence",
        set(),
        adjunct.count_consequence,
        "Equivalence: 'before being <done>' right after an upper bound on a count ('no more than four retries before being moved to ...') says what follows the used-up attempts; after a prohibition or a money cap it is a condition.",
        "paraphrased/next_step_after_the_bound_is_no_scope",
    ),
    _r(
        "qualifier_follows",
        set(),
        rules._qualifier_follows,
        "A relation word right after a copy in its clause narrows it ('... for X').",
        "paraphrased/para4_d_at_all_times_idiom",
    ),
    _r(
        "label_qualifier",
        set(),
        rules._label_qualifier,
        "A word the rule lacks fastened before a rule word in a leading label ('Median API response time:', 'Enterprise customer data:', or one closed by a spaced dash: 'Staging env - ') qualifies the copy under it; so does a label word that may scope it, an environment, a kind of people, a day, time or region, or 'per'/'each' before a bare word ('Staging:', 'Rate per user:'); a topic name ('Git:') or who set the rule ('Rule from the user:') does not.",
        "unverifiable/probe_label_modifier_before_a_rule_noun",
    ),
    _r(
        "past_framed",
        set(),
        rules._past_framed,
        "A past or deferring time marker in the copy's own clause or a short closing one ('used to', 'formerly', ', at first', 'were', 'went', 'have gone', 'got posted', 'required a', 'afterwards', ', starting next month') keeps it from certifying.",
        "unverifiable/probe_past_habit_inside_the_restatement",
    ),
    _r(
        "value_relation",
        set(),
        rules._value_relation,
        "A relation word before a rule value that the rule has not there ('after 04:00' for 'at 04:00') keeps it from certifying.",
        "unverifiable/probe_time_relation_word_before_the_value",
    ),
    _r(
        "act_noun",
        set(),
        rules._unshared_words,
        "A generic noun that names an act ('access', 'processing') and that the rule lacks is extra content: 'PII access is limited to X' is not 'keep PII in X'.",
        "unverifiable/probe_act_noun_access_limited_to_the_region",
    ),
    _r(
        "generic_verb",
        set(),
        align._may_go_unsaid,
        "A generic noun ('record', 'process', 'access') may go unsaid, but used as the rule's verb ('must be processed in') it is the act and must be matched.",
        "unverifiable/probe_generic_verb_processing_read_as_keeping",
    ),
    # Equivalences: a wording of the rule's values or force that counts as the rule's own.
    _r(
        "act_residence",
        set(),
        acts.equivalent_acts,
        "Equivalence: where something is kept at rest, 'stored/kept/held in', 'resides in', 'lives in', on the rule's own object (processing, caching or backing up there are other acts).",
        "paraphrased/act_residence_reside",
    ),
    _r(
        "act_route",
        set(),
        acts.equivalent_acts,
        "Equivalence: the way through an intermediary, 'route/send through', 'go/pass/flow via or through', on the rule's own object ('go to' names the destination and is not one).",
        "paraphrased/act_route_go_via",
    ),
    _r(
        "act_record",
        set(),
        acts.equivalent_acts,
        "Equivalence: an entry in a record (a log, trail, journal, ledger), 'written to', 'recorded/logged/entered in'; writing a file is another act.",
        "paraphrased/act_record_entered",
    ),
    _r(
        "act_prefix",
        set(),
        acts.equivalent_acts,
        "Equivalence: how a name opens, 'start with', 'begin with', 'be prefixed with', on the rule's own prefix.",
        "paraphrased/act_prefix_prefixed",
    ),
    _r(
        "act_bind",
        set(),
        acts.equivalent_acts,
        "Equivalence: a service taking connections on a port, 'listen on', 'bind (to)', 'serve on'; connecting to, opening or exposing a port are other acts.",
        "paraphrased/act_bind_only_port",
    ),
    _r(
        "act_post",
        set(),
        acts.equivalent_acts,
        "Equivalence: a message placed in a channel, 'post/put in', 'belong in', 'go in' a channel or #name; reading, pinning or mirroring there are other acts.",
        "paraphrased/act_post_belong_in",
    ),
    _r(
        "act_call",
        set(),
        acts.equivalent_acts,
        "Equivalence: a request sent to an API or endpoint, 'call', 'hit', 'invoke', with a rule word of the object in the verb's clause; scraping or documenting one are other acts.",
        "paraphrased/act_call_hit",
    ),
    _r(
        "act_stay",
        set(),
        acts.equivalent_acts,
        "Equivalence: 'must not leave R' said from its other side, 'must stay/remain in R', 'is confined to R' (its force), with the polarity turned; copying or processing inside R are other acts.",
        "paraphrased/act_stay_confined_to",
    ),
    _r(
        "act_appear",
        set(),
        acts.equivalent_acts,
        "Equivalence: 'print/display/echo X' said from X's side, 'X appears in output (the console, the screen)'; appearing in a file or another medium is another act.",
        "paraphrased/act_appear_in_output",
    ),
    _r(
        "act_receive",
        set(),
        acts.equivalent_acts,
        "Equivalence: 'assign/schedule/give X to Y' said from the receiver's side, 'Y gets/receives X', with Y before the verb and X right after it; taking, requesting or closing X are Y's own acts.",
        "paraphrased/act_receive_gets",
    ),
    _r(
        "act_refuse",
        set(),
        acts.equivalent_acts,
        "Equivalence: turning something away, 'reject', 'refuse', 'deny', with a rule word of the object in the verb's clause.",
        "paraphrased/act_refuse_passive",
    ),
    _r(
        "bound_named_back",
        set(),
        modality._value_named_back,
        "Equivalence: a bound word followed by an anaphor for a value said before it in the sentence ('4 g per day; never suggest more than that') bounds that value, so a negation turns it ('never fewer than that' is at least) and a cap said as a floor is seen.",
        "contradicted/bound_named_back_cap_turned_into_a_floor",
    ),
    _r(
        "distributed_rate",
        set(),
        mutation.distributed_rate,
        "Equivalence: a value of two rates ('2 night shifts per nurse per week', read with its first) said with its second rate and the first one's noun after 'each', 'every', 'per' or 'no' ('each nurse ... two night shifts per week') is no changed or vanished value; it never certifies.",
        "unverifiable/distributed_rate_each_with_the_second_rate",
    ),
    _r(
        "range_pair",
        set(),
        context._ranged,
        "Equivalence: a range value ('2-8 °C', '1-3 AM') is the rule's 'between A and B' or 'from A to B', end for end and in order.",
        "paraphrased/values_range_written_as_one_value",
    ),
    _r(
        "label_rate",
        set(),
        text.read_words,
        "Equivalence: a rate adverb in a leading label ('Daily spend: $500 at most') is read into the amounts of the clause after it, as 'daily spend is $500 at most' reads them; another rate there ('Weekly spend:') is another value.",
        "paraphrased/label_rate_daily_label_names_the_rate",
    ),
    _r(
        "exclusive_echo",
        set(),
        restate.exclusive_echo,
        "Equivalence: a closing 'and nowhere else', 'and nobody else' after the window's own 'only' bans every other choice again and turns nothing ('only on the perf cluster and nowhere else'); words after it ('on weekdays') are read as usual.",
        "paraphrased/exclusive_echo_nowhere_else",
    ),
    _r(
        "but_exception",
        set(),
        context.but_exceptions,
        "Equivalence: under a negation, 'but' after 'anywhere', 'nowhere', 'nobody' or 'any/no <noun>' is 'except' ('never run anywhere but the perf cluster', 'stored nowhere but in R', 'may not be stored in any region but R'): the window says 'only'; 'anywhere but X' with no negation permits the others, and a 'but' before a verb or pronoun joins clauses.",
        "paraphrased/but_exception_nowhere_but",
    ),
    _r(
        "negated_exclusive",
        set(),
        context._deny_exclusive,
        "A negation over the window's exclusive word ('never stored only in R', 'not kept exclusively', 'not limited to R', 'never run on X alone', force words between allowed) denies the exclusive as 'not only' does: the pair is read as an opener, so a second negation ('and nowhere else', ', nor anywhere else') cannot cancel it; a rule that itself denies one ('do not rely solely on ...') is read as usual.",
        "contradicted/negated_exclusive_never_only_and_nowhere_else",
    ),
    # Damage read in a window that speaks about the rule.
    _r(
        "lifted",
        {_C},
        damage.lifted,
        "The window, or a clause pointing back at the rule, says it was lifted or no longer applies.",
        "contradicted/adv_gated_but_lifted",
    ),
    _r(
        "act_not_lift",
        set(),
        acts.act_on_object,
        "A lifting verb that is the rule's act or its opposite done to the rule's own object ('Customer uploads can only be removed after 3 days' for 'Keep customer uploads for at least 7 days') deletes, it lifts no rule: lifted does not read it and the value is read instead; a rule noun or anaphor in its clause ('the retention rule for uploads was removed') still lifts.",
        "mutated/act_not_lift_removed_uploads_sooner",
    ),
    _r(
        "polarity",
        {_C},
        damage.polarity,
        "Negation inserted or removed, a bound reversed, read-only made writable, an exclusive rule opened.",
        "contradicted/adv_converse_with_wrong_side",
    ),
    _r(
        "anchor_diff",
        {_M},
        mutation.anchor_diff,
        "A value, name or bound term of the rule restated as another, or vanished from its restatement.",
        "weakened/issue_9_synonym_group_split_snapshot",
    ),
    _r(
        "hedge",
        {_W},
        damage.hedge,
        "A hedge, condition, approximation or limited permission wrapped around the rule.",
        "weakened/lift_for_one_job_is_scoped",
    ),
    _r(
        "modality_loss",
        {_W},
        damage.modality_loss,
        "Must became may, 'and' and 'or' swapped, or the rule's force is gone from its restatement.",
        "contradicted/realistic_a063_scale_production_cluster_without",
    ),
    _r(
        "narrowed",
        {_W},
        rules._narrowed,
        "The whole rule restated with a qualifier that narrows its scope ('... for EU users').",
        "paraphrased/realistic_b055_keep_invoices_7_years",
    ),
    _r(
        "held_permission",
        set(),
        damage._held_permission,
        "Abstention: a permission held by 'only' to a condition ('can only be merged if ...', 'only after that may they be purged') may state the rule's own requirement; where hedge, modality_loss or later_permission would read an exception, the tier abstains and no copy certifies. A bare prohibition ('fine, but only on shared branches') and a hedge beside it stay damage.",
        "unverifiable/held_permission_can_only_if_restates_unless",
    ),
    _r(
        "enforcement",
        set(),
        damage._enforces,
        "Abstention: a condition that follows a refusal verb in its clause ('the registry rejects such pushes unless ...') says how the rule is enforced, not an exception to it; with no force word beside it, hedge abstains instead and no copy certifies. A permission beside it, or a condition before the refusal, stays damage.",
        "unverifiable/enforcement_registry_rejects_unless_signed",
    ),
    _r(
        "world_report",
        set(),
        damage.reports_world,
        "Abstention: a dated or past statement with no force word ('Processed 61 claims under $300 today', 'still has no cleanup job, so nothing is deleted yet'; 'has no' is an absence, not a ban) reports the world, not the rule: polarity and hedge abstain instead and no copy certifies. A force word beside the dating word ('still need') stays damage.",
        "unverifiable/world_report_still_has_no_cleanup",
    ),
    _r(
        "requirement_wording",
        set(),
        damage._requirement_wording,
        "Abstention: 'do not X unless/without C' and 'no X until C', 'may not X unless C', 'C has to hold for X' are one requirement counted apart ('without' is a negation, 'unless' is not); where polarity reads a reversal, the tier abstains and no copy certifies. An opener anywhere in the window or a bound turned stays damage.",
        "unverifiable/requirement_wording_has_to_for",
    ),
    _r(
        "split_prohibition",
        set(),
        damage._split_prohibition,
        "Abstention: a prohibition said twice, once in each clause ('never go onto personal devices: no copying them to a laptop'), counts an even number of negations; each clause holding an odd number, polarity abstains and no copy certifies. A permission beside it stays damage.",
        "unverifiable/split_prohibition_two_clauses",
    ),
    _r(
        "only_writable",
        set(),
        damage._only_writable,
        "Abstention: 'the only writable location is X' for an exclusive rule holds the write word to its one place; polarity's 'read-only became writable' abstains instead and no copy certifies. A write word not held by 'only' stays damage.",
        "unverifiable/only_writable_restates_the_exclusive_half",
    ),
    _r(
        "property_sides",
        set(),
        damage._property_sides,
        "Abstention: a property word ('encrypted', 'verified', 'public') whose neighbours changed places ('AES-256 encryption at rest') orders nothing, so polarity's 'its two sides swapped' abstains and no copy certifies; an ordering relation ('before', 'above', 'more') swapped, or a permission beside it, stays damage.",
        "unverifiable/property_sides_encrypted_reordered",
    ),
    _r(
        "infinitive_to",
        set(),
        rules._force_phrase,
        "A relation word inside a force phrase ('has to pass', 'needs to stay') is the infinitive's 'to': it leads no scope, so narrowed does not read the word after it as a qualifier ('for the iOS app', 'on staging' still do).",
        "unverifiable/infinitive_to_stay_compatible",
    ),
    _r(
        "dimension_noun",
        set(),
        rules._names_the_bound,
        "A noun right before a bound on the rule's value ('at a rate under 60 requests per minute') names what the value measures: narrowed does not read it as a scope ('peak rate', 'for batch jobs' still narrow); it still keeps a copy from certifying.",
        "unverifiable/dimension_noun_rate_before_the_bound",
    ),
    _r(
        "another_for_any_other",
        set(),
        rules._other_one,
        "'another' where the rule says 'any other' ('never move them to another site') is the rule's own word: narrowed does not read it as a scope; without 'other' in the rule it is one.",
        "unverifiable/another_for_any_other_site",
    ),
    # The closed world: other statements on the topic, and the copy's framing.
    _r(
        "later_lift",
        {_C, _W},
        world._lift,
        "A lift or suspension whose subject is the rule ('that limit was removed', 'is on hold').",
        "contradicted/issue_9_copy_then_anaphoric_lift_far_away",
    ),
    _r(
        "undone_verb",
        {_C},
        world._unverb,
        "The rule's own verb undone by an actor ('the user unpinned numpy'); undone in a state that is then accepted anywhere on the topic ('is written unencrypted; the user was fine with that'), it abstains.",
        "contradicted/issue_9_copy_then_unverb",
    ),
    _r(
        "superseded",
        {_C},
        world._supersede,
        "The rule is said to belong to the past ('That was before ...', 'used to').",
        "contradicted/issue_9_that_was_before_supersedes",
    ),
    _r(
        "later_permission",
        {_C, _W},
        world._permission,
        "A permission for what the rule forbids or to act against it ('exceeding it is fine'), or to reach a new value of its slot next to the copy ('we can spend up to $1,100'; 'we may go to $1,200' may forecast and abstains). For a rule that counts things, the things given or had past its bound ('can receive 3 payment reminders', 'may get a second one', 'A fifth retry is fine.' after 'at most 4 times') are such a value: an ordinal after an article counts the things it makes, so does a bare number right after the verb ('may get four', 'may post six each day' under a daily bound; per a shorter period it is weighed in the rule's: 'two a week' is eight a month), and inside the bound ('a third retry' under four) departs from nothing.",
        "contradicted/issue_9_copy_then_permission_to_exceed",
    ),
    _r(
        "ending_permitted",
        set(),
        world._ending_permitted,
        "Next to the copy, a permission to do the opposite of what a rule keeps for a time, on its object ('They can be deleted at any time', 'Deleting them early is fine' after 'Keep build artifacts for at least 30 days') is later_permission's contradicted; held by a condition or time ('after a review') it abstains, a value there is read by the value readers, and 'after that' or the rule's floor passed ('after 30 days') is the side left open; 'Build logs can be deleted' is another noun.",
        "contradicted/ending_permitted_deleted_at_any_time",
    ),
    _r(
        "later_extension",
        {_C, _W},
        world._extension,
        "An exclusive rule opened to more ('may also run in ...', 'open to 0.0.0.0/0').",
        "contradicted/issue_9_only_rule_opened_to_everyone",
    ),
    _r(
        "slot_permission",
        {_C, _W},
        world._slot_permission,
        "A permission past the rule's own slot, named by an anaphor, its value or its words ('fine outside that window', 'fine above the cap') or by another of the slot's noun ('Other regions are acceptable' after 'only ... in the Frankfurt region'); another noun than the rule's act abstains.",
        "contradicted/probe_slot_permission_rule_act_fine_after_its_end_time",
    ),
    _r(
        "anaphor_reach",
        set(),
        world._remote_departure,
        "An anaphor is the rule's past every sentence that offers it no nearer antecedent (no value, force or rule noun: 'Lunch was ordered.'), after any mention and with no cap; what it departs with there, or a bare release next to a mention ('it's fine', 'that is optional now', 'don't worry about that', 'For the hotfix tonight that is fine'), is unverifiable.",
        "unverifiable/anaphor_reach_permission_past_an_unrelated_sentence",
    ),
    _r(
        "elliptical_remark",
        set(),
        world.elliptical,
        "A fragment of a few words right after the copy with no subject of its own, opening with a negation, 'or', 'until', a bare copula or a lifting word ('Scrapped.', 'Not for this run.', 'Or not.', a bare 'No.'), speaks about the copy: the readers take the rule as its subject, and what none of them names is unverifiable; a remark that says the force again ('No exceptions.', 'Not optional.', 'Not a cent more.') or a sentence with its own subject is read as usual.",
        "contradicted/elliptical_remark_scrapped",
    ),
    _r(
        "asked_copy",
        set(),
        world._asked,
        "A copy said as a question ('Daily spend stays under $500?') states nothing and does not certify; a question before the copy ('Budget? ...') is a label.",
        "unverifiable/asked_copy_declarative_question",
    ),
    _r(
        "voiding_markup",
        set(),
        world._voided,
        "Markup that switches the copy off does not certify it: strike-through ('~~...~~'), a field beside it or on the next line ('\"active\": false', 'status: void').",
        "unverifiable/voiding_markup_struck_through",
    ),
    _r(
        "refused_copy",
        set(),
        world._refused,
        "A short sentence right after the copy that refuses it ('Nobody agreed.', 'The user disagreed and set no cap.') abstains; 'Nobody agreed to skip it' agrees with the rule.",
        "unverifiable/refuse_no_one_agreed",
    ),
    _r(
        "waived_requirement",
        set(),
        world._waived,
        "Right after a mention or the copy, one of the rule's requirements said to be unneeded ('you don't need to ask me about small packages', 'no need to go through us', 'don't wait for verification'), or an 'until' rule's wait skipped ('rather than waiting'), abstains.",
        "unverifiable/waived_no_need_to_ask",
    ),
    _r(
        "group_lift",
        set(),
        world._group_lift,
        "Rules lifted or softened as a group anywhere on the topic ('All of the above are relaxed for the migration', 'all these limits are soft for launch week', 'the three rules above are suspended') may hold this one: it abstains. A lift word denied just before it ('none of them are relaxed') lifts nothing.",
        "unverifiable/group_lift_all_of_the_above",
    ),
    _r(
        "unnamed_lift",
        set(),
        world._unnamed_lift,
        "A rule noun that names no rule by words of its own ('the rule', 'the old constraint'), lifted anywhere on the topic ('The rule was dropped after the review'), may be this one: it abstains. 'The logging rule' or 'the rule on logging' names another by a word this one lacks, but after a plain adjective a describing word may be this rule's in other words ('the old in-house-only rule was dropped'); a denied lift ('was never lifted') lifts nothing.",
        "unverifiable/unnamed_lift_the_rule_was_dropped",
    ),
    _r(
        "unnamed_bound_change",
        set(),
        world._unnamed_bound_change,
        "For a rule that bounds a value, a bound noun that names no bound by words of its own ('the cap', 'the limit'), changed anywhere on the topic ('The user later doubled the cap', 'chose to triple that figure'), may be this rule's: it abstains. 'The cap on concurrent jobs' or 'the rate limit' names another; a denied change changes nothing.",
        "unverifiable/unnamed_bound_changed_past_progress",
    ),
    _r(
        "resumed_act",
        {Kind.CONTRADICTED},
        world._resumed,
        "For a rule that forbids or pauses an act, one of its own words with a word that starts it again in its clause ('Writes were re-enabled for the batch window', 'sends to Quebec users were unblocked', 'sends are back on', 'going out again') lifts it (of a paused noun phrase, its head or a modifier before another of its words or a noun of sending: 'Social sends are going out again'; not 'the social team'); it abstains where the act may start again outside the ban: a pause held to a condition ('while the incident is open'), a ban of some days or amounts, a scope ('for the batch window'). Another name in the clause ('writes to orders_staging') is another target; a denied resumption ('were not re-enabled') starts nothing.",
        "contradicted/act_resumed_after_a_ban",
    ),
    _r(
        "carve_out",
        set(),
        world._carve_out,
        "Right after a mention or the copy, a permission ('is fine', 'can', 'go ahead and') scoped to a case ('for hotfix branches', 'during the reindex') or going without one of the rule's words ('can be removed without asking'), that stands by one of the rule's head words or a synonym, a piece of a compound holding one ('self-approval') or a name of the rule's own name's shape ('us-west-2' for 'ca-central-1'), or by a pointer opening the clause after an 'if' or 'when' case that names one ('If a renewal only swaps the chain, it can happen the same morning.', 'If build-0411 only changes copy, it may ship right away.'), may carve an exception out of the rule: it abstains; so does such a permission asked anywhere ('Can the docs team still commit after freeze?'). One on the side the rule leaves open ('Merging is fine once both approvals are in.') or with a value of the rule's measure is left to the other readers.",
        "unverifiable/carve_out_okay_for_a_case",
    ),
    _r(
        "corrected_copy",
        set(),
        world._corrected,
        "A remark right after the copy that corrects one of its words or its unit ('That's Pacific time, not UTC.', 'It's €500, not dollars.'), or replaces one of its names with another of its shape whoever says so ('the percentile is p90, not p99'), abstains.",
        "unverifiable/correct_zone_not_utc",
    ),
    _r(
        "label_value",
        set(),
        world._relabelled,
        "A 'key: value' line right after the copy whose key names the rule's verb, object or aspect and whose value is a new one of the rule's measure ('max_retries: 8', 'Retention: 30 days.') abstains; so does one anywhere on the topic whose key holds one of the rule's head words ('deploy_days: [mon, fri]' in a config block, 'webhook_retries: 6'), short day names in a list of days read as days and identifier parts as the rule's words.",
        "unverifiable/label_value_max_retries",
    ),
    _r(
        "row_value",
        set(),
        world._row_value,
        "A table row anywhere on the topic whose first cell names the rule's subject in the rule's own words and whose other cell holds a new value of the rule's measure ('| payroll exports | 10 days |' under 'Keep payroll exports for at least 10 years') abstains, however far the table stands from a faithful copy; a row of another subject ('| scratch exports | 7 days |') or restating the rule's value departs from nothing.",
        "unverifiable/row_value_table_row_far_from_the_copy",
    ),
    _r(
        "later_omission",
        set(),
        world._omission,
        "An imperative after the copy that leaves out what a 'without' rule requires ('Skip the header unless the API rejects the call', 'Just skip the backup') abstains: the tier cannot weigh the cases it names; skipping the act itself ('Skip the admin API') is not read.",
        "unverifiable/omission_skip_the_required_header",
    ),
    _r(
        "later_concession",
        set(),
        world._concession,
        "A statement after the copy with no negation that does the act a prohibition forbids and concedes a case ('Branches must be merged even when coverage is below 90%', 'Delete audit logs no matter what') abstains; 'Never merge even if the lead asks' restates the rule.",
        "unverifiable/concession_merged_even_when_below_the_bound",
    ),
    _r(
        "later_allowance",
        set(),
        world._allowance,
        "'allows' or 'permits' before a value past the rule's one bound abstains where its subject holds nothing: the copy's own remark ('(Usage so far allows 55 GB.)' after 'Keep nightly exports under 40 GB'), a reference to the rule ('The limit allows 60 GB'), someone who may permit ('The user allows 60 GB') or a reading ('Usage so far allows 55 GB.'); it may permit going over or state a capacity. A thing that holds, in a sentence of its own ('The new disk allows 55 GB of exports'), states a capacity, and a value inside the bound or a denied allowance departs from nothing.",
        "unverifiable/later_permission_allows_past_the_cap_in_the_remark",
    ),
    _r(
        "counted_act",
        set(),
        world._counted,
        "A count in the noun of the rule's own verb is a count of the rule's times ('7 retries' after 'Retry the webhook at most 4 times', '5 restarts' after 'Restart the worker at most 3 times per hour'), so the value readers read it as the rule's measure, as they read '3 times' after 'at most twice'; so is a count in the head of the rule's compound count noun ('3 reminders' after 'two payment reminders per account'); a count of another noun ('7 webhooks', 'a failed payment') is not.",
        "contradicted/later_permission_act_noun_count_past_the_cap",
    ),
    _r(
        "slot_drift",
        {_W},
        world._slot_drift,
        "The rule's value permitted to move ('the band is allowed to slip', 'some drift is acceptable', 'Excursions to 26 degrees are fine', 'a couple of degrees either way is fine'), named by an anaphor, a slot noun next to the copy or the rule's subject; a bare modal ('The range may drift at night', 'it can slip') may be a possibility and abstains; 'within the range', a denial or a drift reported restate it.",
        "weakened/slot_drift_band_allowed_to_slip",
    ),
    _r(
        "unit_permission",
        {_C, _W},
        world._unit_permission,
        "Another unit of the rule's slot permitted ('US invoices are fine in dollars' after 'in euros'): weakened for a kind of the subject or a scope, contradicted for all; another act ('the client may pay in dollars') departs from nothing.",
        "contradicted/unit_permission_for_everyone",
    ),
    _r(
        "condition_met",
        set(),
        slot.condition_met,
        "A permission for the rule's act once its whole condition is met ('Merges can go to main after review' for 'never merge to main without a review'), with no negation and nothing more after the condition, is the side the rule leaves open: no force lost, no negation reversed ('Releases may ship once QA signs off' for '... unless QA signs off'), no permission against it.",
        "preserved/condition_met_permission_after_the_condition",
    ),
    _r(
        "floor_passed",
        set(),
        slot.floor_passed,
        "A permission to end what the rule keeps for a least time once that time has passed ('Build artifacts can be deleted after 30 days' for 'Keep build artifacts for at least 30 days', or a later time), with no negation and nothing after the value but the rule's words, is the side the rule leaves open: no negation reversed; an age floor ('before they are 14 days old') is met by 'after 14 days' or 'once they are 14 days old', and polarity's 'read-only became writable' asks it too; 'after 20 days' or '... on staging' is read as usual.",
        "unverifiable/floor_passed_delete_after_the_floor",
    ),
    _r(
        "reading_left_open",
        set(),
        slot.reading_left_open,
        "A permission to read, with nothing but the rule's words ('Reading files in /etc is fine'), after a ban on writing that does not ban reading, is the side the rule leaves open.",
        "preserved/reading_left_open_read_after_a_write_ban",
    ),
    _r(
        "later_exception",
        {_W},
        world._exception,
        "An exception next to the rule ('Exceptions: ...', 'except ...').",
        "weakened/issue_9_copy_then_exceptions_label",
    ),
    _r(
        "later_scope",
        {_W},
        world._scope,
        "The rule narrowed by an anaphor ('This applies only to ...').",
        "weakened/issue_9_copy_then_scope_narrowed_by_anaphor",
    ),
    _r(
        "later_change",
        {_M},
        world._change,
        "A change verb with the rule's subject and a new value or a relative change ('doubled it'), or opening the copy's own remark ('(lowered to $600 soon)').",
        "mutated/issue_9_copy_then_parenthetical_raise",
    ),
    _r(
        "lift_to_value",
        set(),
        slot.lifted_to_value,
        "A lifting verb with 'to' and a value a few words after it ('the user dropped that to 3 days', 'relaxed the cap to $900') changes the value, it lifts nothing: lifted and later_lift do not read it, and later_change does when it has an object or is passive ('coverage dropped to 84.2%' reports a level).",
        "mutated/lift_to_value_anaphor_dropped_to_a_new_value",
    ),
    _r(
        "aspect_changed",
        set(),
        world._aspect_changed,
        "Next to the copy, a change verb on a noun that names what the rule sets ('retention', 'period', 'rate', 'window') with a new value of its dimension after 'to' ('The user lowered the retention to 3 days') keeps the copy from certifying; the noun may name another thing's, so it is unverifiable. 'Retention is now 3 days' is later_value's, unverifiable too.",
        "unverifiable/aspect_changed_lowered_the_retention",
    ),
    _r(
        "later_value",
        {_M},
        world._value,
        "A new value of the rule's dimension bound to its subject ('the cap is $2,000', 'the target is now ...'); a second bound in the copy's own remark ('(up to $1,200 with approval)') abstains. Next to the copy, the rule's subject given another value of its unit in its clause, led by a word of treatment ('are purged after 2 days', 'can only be deleted after 14 days', 'we already delete them after 3 days') is mutated past the rule's one bound with its act or the opposite act right before the lead ('deleted after', 'kept for') and no negation or hypothetical; otherwise ('once they exceed $9,000', 'move to cold storage after 30 days') it abstains; a reading ('is 190 ms', 'started at 02:10', 'older than 400 days') or a count of the subject ('purged 30 records') is no value of it. A period rule ('every 8 hours') abstains where its act, its act made a noun, a period noun ('the interval') or, right after the copy, a pointer is said to run at another period or a frequency word ('every 90 days', 'hourly', 'a weekly schedule'); another act's period ('logs rotate weekly') and the rule's own said in a word ('daily' for 'every 24 hours') depart from nothing.",
        "mutated/issue_9_target_is_now_a_new_band",
    ),
    _r(
        "subject_bound",
        set(),
        world._subject_bound,
        "Next to the copy, the rule's subject bound anew or permitted a value in its clause ('Builds are capped at 45 minutes', 'can last 45 minutes' after 'Keep builds under 30 minutes'): a bound set past the rule's for all cases is later_value's mutated, 'can' past it later_permission's; a bare bound ('last up to'), 'may', a scope or a tighter cap abstains; a permission inside a one-sided bound ('can hold 2 jobs' under a limit of 3) and a subject word modifying another noun ('build caches are capped') depart from nothing.",
        "mutated/subject_bound_capped_past_the_rule",
    ),
    _r(
        "light_slot",
        set(),
        slot.light_slots,
        "A light noun ('sessions', 'status updates') holds the rule's value when no content word does, so later_value reads it as the rule's subject ('Sessions are kept alive for 45 minutes' after 'Keep sessions under 30 minutes').",
        "mutated/light_slot_sessions_kept_alive_longer",
    ),
    _r(
        "suspending_heading",
        {_C, _W},
        world.framing,
        "A heading over the copy, or a short label or bracketed remark on it, disowns it (superseded, 'Rejected:') or makes it optional (nice-to-haves, '(negotiable)'); 'Draft:', '(to be confirmed)' and a heading that may scope the list ('## Staging') abstain.",
        "contradicted/issue_9_heading_disowns_the_list",
    ),
    _r(
        "suspending_attribution",
        {_C},
        world.framing,
        "Words before or after the copy put it in the past or in a rejected source ('Initially,').",
        "contradicted/issue_9_initially_frame",
    ),
    _r(
        "appended_alternative",
        {_W},
        world.residue_departure,
        "Text appended inside the copy's clause widens it ('or /tmp', 'or equivalent', ', except ...', 'and dollars' after 'in euros'); an appended scope ('(for admins)', ', per token', 'for staging only' anywhere in its remark) abstains, as does a noun phrase joined by 'and' to an 'only' rule's one choice ('and the gpu box', 'and staging').",
        "weakened/issue_9_appended_alternative_path",
    ),
    # Verdicts without a restatement.
    _r(
        "block_echo",
        {Kind.PRESERVED},
        detector._conclude,
        "Only the guard's carried block holds the rule, and nothing read departs from it.",
        "preserved/block_echo_when_nothing_else_decides",
    ),
    _r(
        "miss",
        {Kind.DROPPED},
        detector._conclude,
        "No sentence of the summary or the kept text carries a trace of the rule.",
        "contradicted/realistic_c034_use_instance_types_no",
    ),
)

# The verdict, in order: the first step that applies decides (detector._conclude).
PRECEDENCE: tuple[tuple[str, str], ...] = (
    (
        "stated damage",
        "a damage rule in a window strong enough to outweigh any copy; the worst kind wins",
    ),
    (
        "certified copy",
        "every part certified; then the closed world is read and a departure replaces it",
    ),
    ("inferred damage", "no copy: a value, name or force missing from a restatement"),
    ("closed world", "a clean trace: every statement on the topic is read; a departure decides"),
    ("block echo", "only the carried block holds the rule"),
    ("miss", "no trace anywhere: dropped"),
    (
        "abstain",
        "unverifiable; certification forbidden when damage was seen (closed_world: departure)",
    ),
)


def rule_ids() -> frozenset[str]:
    """Return every catalogued `decided_by` id."""
    return frozenset(r.id for r in RULES)
