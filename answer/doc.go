// Package answer measures answer-span retrieval accuracy as DPR does
// (Karpukhin et al. 2020): a retrieved passage "has the answer" when one of
// the question's answer strings occurs in it, and top-k accuracy is the
// fraction of questions with an answer-bearing passage within the first k.
// It also reads and writes passages in DPR's layout, splits documents into
// fixed-size passages, and reads answer files.
//
// # Matching (the dpr convention of METRICS.md)
//
// Three modes, named as the CLI spells them:
//
//   - String (DPR's "string" match_type): the passage text and each answer
//     are Unicode-NFD normalised and split into tokens, each a maximal run
//     of letters, numbers and marks ([\p{L}\p{N}\p{M}]+) or any single other
//     character that is neither a separator (\p{Z}) nor "other" (\p{C},
//     which includes unassigned code points as in Python's regex module);
//     tokens are lower-cased one by one as Python's str.lower does (Σ
//     becomes ς at the end of a token). The passage has the answer when
//     the answer's tokens occur contiguously in the passage's tokens.
//     "1,000" is the three tokens 1 , 000 and does not match "1000".
//   - Regex (DPR's "regex", for CuratedTREC): the NFD-normalised pattern is
//     searched case-insensitively, in multi-line mode, in the NFD passage
//     text. Patterns are Python regular expressions, run by dreval's one
//     regular-expression engine (internal/regex, a backtracking matcher as
//     Python's re is: lookaround, lazy quantifiers) with Python's classes:
//     \s is str.isspace (with U+001C..U+001F, U+0085 and \p{Z}), \w is
//     letters, numbers and "_" (not marks, so after NFD a combining accent
//     ends a word for \b, as in Python), \d the decimal digits. Python's
//     \Z and (?P<name>...) are rewritten to the engine's spelling, and a
//     backslash before a non-ASCII character is dropped before NFD (Python
//     reads "\–" as a literal "–"). Whether a passage matches is decided
//     in time linear in its length (an automaton), except for patterns
//     with lookaround, which backtrack. A pattern that does not compile
//     (backreferences, {n,m} with n > m), or that backtracks past the
//     engine's budget on a passage, is
//     an error naming the question; DPR treats a pattern Python cannot
//     compile as a silent miss, dreval refuses to. Note: three CuratedTREC
//     test patterns ("Sn\ě\žka", "P\étain", "K\ösen") become the unknown
//     escapes "\e", "\o" after DPR's NFD, which Python (3.6 and later)
//     refuses: DPR's own code silently counts those questions as misses,
//     dreval matches the letters the patterns meant.
//   - Substring (not in DPR): the concatenation of the String-mode tokens,
//     that is the NFD text lower-cased with every separator and "other"
//     character (spaces, tabs, newlines, control and format characters)
//     removed, on both sides; the passage has the answer when the answer's
//     form is a substring of the passage's. Scripts written without spaces
//     (Chinese) need it: a run of Chinese characters is one String-mode
//     token, so an answer inside a longer run never matches in String mode.
//     By construction a String-mode match is also a Substring-mode match.
//
// An answer whose normalised form is empty (the empty string, only spaces,
// only control characters) never matches, in every mode. DPR's has_answer
// matches such an answer everywhere (an empty token sequence occurs in
// every passage); dreval treats it as no answer and counts the questions
// left without one in Result.EmptyAnswers.
//
// Only the passage text is searched, not its title, as in DPR's
// validation code.
//
// Invalid UTF-8 reads as U+FFFD, one per invalid byte.
//
// # Accounting
//
// TopK orders each run list as the trec convention does (score descending,
// ties by passage id descending) and searches it to its full depth for the
// first answer-bearing passage. Every question of the answers is in the
// denominator, as in DPR: questions absent from the run, questions declared
// unanswerable by span (Options.Unanswerable, such as HotpotQA's yes/no
// questions; see YesNoQuestions) and questions without a usable answer
// count as misses and are listed in the Result, never dropped. A question
// may appear in several of these lists. Run queries that are not questions
// are ignored and counted; a run passage absent from the passages is an
// error.
package answer
