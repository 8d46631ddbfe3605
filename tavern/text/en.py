"""English word classes (`Lexicon` for "en"). Every verb class lists each form a rule meets:
base, third person, past, participles."""

from __future__ import annotations

from tavern.text.lexicon import Lexicon, words_of

_SPEAKING = words_of(
    """
    speak speaks spoke spoken speaking say says said saying ask asks asked asking
    tell tells told telling reply replies replied replying answer answers answered answering
    whisper whispers whispered whispering murmur murmurs murmured murmuring mutter mutters
    muttered muttering call calls called calling shout shouts shouted shouting yell yells
    yelled yelling cry cries cried crying talk talks talked talking chat chats chatted
    declare declares declared exclaim exclaims exclaimed repeat repeats repeated insist
    insists insisted swear swears swore sworn announce announces announced add adds added
    continue continues continued begin begins began
    """
)

LEXICON = Lexicon(
    language="en",
    stop_words=words_of(
        """
        a an the and or but nor yet so for not no to of in on at by as is am are was were be
        been being do does did doing done has have had having it its it's this that these
        those there here their theirs them they then than too very just from into onto over
        under about above after before again also each few more most much must only other
        own same she he her hers his him i me my mine we us our ours you your yours who whom
        whose what when where which why how with all any can could should would will shall
        may might let lets get got make made say says said tell told see saw seen come came
        goes went go now well still even ever every like want know think thought look looks
        yes okay really thing things something nothing anything someone anyone everyone
        maybe off once both because while until upon some such out up down
        """
    ),
    articles=words_of("a an the"),
    fillers=words_of("now still again also then just already even once too only really"),
    pronouns=words_of("i me you he him she her it we us they them"),
    speaking=_SPEAKING,
    whispering=words_of("whisper whispers whispered whispering"),
    moving=words_of(
        """
        walk walks walked walking go goes went gone going run runs ran running step steps
        stepped stepping climb climbs climbed climbing cross crosses crossed crossing head
        heads headed heading move moves moved moving leave leaves left leaving enter enters
        entered entering approach approaches approached approaching return returns returned
        returning wander wanders wandered stride strides strode hurry hurries hurried pace
        paces paced stroll strolls strolled descend descends descended ascend ascends
        ascended come comes came coming arrive arrives arrived arriving
        """
    ),
    perceiving=words_of(
        """
        is are was were be been being has have had seems seem seemed appears appear appeared
        remains remain remained hears hear heard hearing sees see saw seen seeing notices
        notice noticed noticing smells smell smelled senses sense sensed feels feel felt
        watches watch watched watching looks look looked looking listens listen listened
        observes observe observed
        """
    ),
    thinking=words_of(
        """
        think thinks thought thinking wonder wonders wondered wondering hope hopes hoped
        hoping wish wishes wished wishing believe believes believed believing fear fears
        feared fearing suspect suspects suspected suspecting imagine imagines imagined
        imagining remember remembers remembered remembering ponder ponders pondered
        pondering muse muses mused musing guess guesses guessed guessing decide decides
        decided deciding plan plans planned planning consider considers considered
        considering reason reasons reasoned reasoning
        """
    ),
    acting=words_of(
        """
        take takes took taken taking give gives gave given giving grab grabs grabbed open
        opens opened opening close closes closed closing lock locks locked unlock unlocks
        unlocked push pushes pushed pull pulls pulled reach reaches reached reaching hold
        holds held holding put puts placing place places placed pick picks picked lift lifts
        lifted drop drops dropped hand hands handed touch touches touched sign signs signed
        draw draws drew drawn strike strikes struck throw throws threw thrown pour pours
        poured hide hides hid hidden search searches searched examine examines examined
        inspect inspects inspected follow follows followed visit visits visited bring brings
        brought carry carries carried use uses used find finds found check checks checked
        show shows showed shown
        """
    ),
    negations=words_of("not no never nobody none nothing nowhere neither nor n't cannot"),
    operator_nouns=words_of(
        """
        player players user users end-user end-users operator operators gamer gamers
        roleplayer roleplayers
        """
    ),
    operator_qualifiers=words_of("human real live actual real-world real-life"),
    human_nouns=words_of("human"),
    person_nouns=words_of(
        "person persons participant participants individual individuals someone somebody"
    ),
    operator_determiners=words_of("the a an our your this that my their"),
    operator_exclusions=words_of("of at in on with from fee fees toll tax taxes"),
    second_person=words_of("you your yours yourself yourselves"),
    auxiliaries=words_of(
        """
        will would can could may might must should shall is are was were has have had do
        does did am be been being
        """
    ),
    control_verbs=words_of(
        """
        controlled played voiced puppeted roleplayed portrayed embodied operated driven
        steered run directed commanded piloted handled
        """
    ),
    role_verbs=words_of("controlled played voiced puppeted roleplayed portrayed embodied"),
    controlling_verbs=words_of(
        """
        control controls controlling drive drives drove driving steer steers steering operate
        operates operating voice voices voicing puppet puppets puppeteer puppeteers pilot
        pilots piloting command commands commanding
        """
    ),
    typing_verbs=words_of("type types typed typing"),
    writing_verbs=words_of(
        """
        write writes wrote written writing enter enters entered entering submit submits
        submitted submitting input inputs send sends sent sending
        """
    ),
    playing_verbs=words_of("play plays played playing roleplay roleplays roleplayed roleplaying"),
    choosing_verbs=words_of(
        """
        decide decides decided deciding choose chooses chose chosen choosing pick picks picked
        picking select selects selected selecting
        """
    ),
    describing_verbs=words_of(
        "describe describes described describing narrate narrates narrated narrating"
    ),
    waiting_verbs=words_of("wait waits waited waiting await awaits awaited awaiting"),
    imperatives=words_of(
        """
        speak talk answer reply respond act decide choose pick select write type enter submit
        send describe narrate play control voice
        """
    ),
    message_nouns=words_of("input inputs prompt prompts"),
    input_nouns=words_of(
        """
        input inputs message messages prompt prompts turn turns reply replies answer answers
        move moves line lines text texts words choice choices command commands entry entries
        response responses action actions
        """
    ),
    interface_nouns=words_of(
        "keyboard keyboards terminal terminals console consoles computer computers"
    ),
    avatar_nouns=words_of(
        "avatar avatars character characters persona personas proxy stand-in puppet pawn alter-ego"
    ),
    conjunctions=words_of("and but then so or while as yet"),
    attempting=words_of("try tries tried trying attempt attempts attempted attempting"),
    outcomes=words_of(
        """
        fail fails failed failing succeed succeeds succeeded succeeding success failure
        """
    ),
    prepositions=words_of(
        """
        at in inside on upon by near within beside around with of into onto under over behind
        before across through beneath above below between among outside toward towards
        without after along against
        """
    ),
    greetings=words_of("hello hi hey greetings welcome evening morning afternoon good there"),
    third_person=words_of("he she they"),
    first_person=words_of("i me my mine myself we us our ours ourselves"),
    subordinators=words_of(
        "as when while after before once since until because although though if unless"
        " whereas despite"
    ),
    leads=words_of(
        "as when while after before once since until then suddenly meanwhile now finally"
    ),
    adverb_endings=words_of("ly"),
    pre_verbal=words_of("then also just already never still often even ever soon"),
    progressive_auxiliaries=words_of("is are was were"),
    gerund_endings=words_of("ing"),
    perfect_auxiliaries=words_of("has have had"),
    participle_endings=words_of("ed en"),
    relatives=words_of("who whom whose which that"),
    bare_speech=words_of(
        "something softly quietly aloud again briefly voice himself herself themselves"
    ),
    deciding=words_of(
        """
        decide decides decided deciding plan plans planned planning intend intends intended
        intending resolve resolves resolved resolving consider considers considered
        considering reason reasons reasoned reasoning
        """
    ),
    joins=words_of("and with"),
    possessives=words_of("his her their its my your our"),
    placing=words_of("sits sit lies lie stands stand hangs hang rests rest leans lean"),
    numerals=words_of("one two three four five six seven eight nine ten several many few some"),
    dangling=words_of(
        """
        the a an his their its my your our of into onto upon toward towards and or but nor
        than because
        """
    ),
    code_nouns=words_of(
        "password passwords passphrase passcode code codes codeword code-word watchword"
        " countersign combination cipher"
    ),
)
