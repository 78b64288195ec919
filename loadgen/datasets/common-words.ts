// Everyday English words, each one token under the built-in rule and, with a leading space, one token in the
// common BPE vocabularies, so text of a wanted token length can be built by counting words.

export const COMMON_WORDS: readonly string[] = Object.freeze(
  (
    'time year people way day man thing woman life child world school state family student group country ' +
    'problem hand part place case week company system program question work government number night point ' +
    'home water room mother area money story fact month lot right study book eye job word business issue side ' +
    'kind head house service friend father power hour game line end member law car city community name ' +
    'president team minute idea kid body information back parent face others level office door health person ' +
    'art war history party result change morning reason research girl guy moment air teacher force education ' +
    'say get make go know take see come think look want give use find tell ask seem feel try leave call ' +
    'good new first last long great little own other old right big high different small large next early ' +
    'young important few public bad same able open full clear simple short strong light easy hard ready ' +
    'about after again against along also always another around because before between both during each ' +
    'even every here just later maybe more most never often only over since still then there through today ' +
    'together under until very where while without yet green river stone cloud garden paper window music ' +
    'market table letter signal bridge engine planet ocean forest winter summer coffee bread silver yellow'
  ).split(' '),
);
