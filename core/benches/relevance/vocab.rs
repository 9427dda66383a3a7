//! The generator's word tables: personas, fact kinds with their synonym rows, and the
//! templates answers, questions and filler turns are written from.
//!
//! Template placeholders (filled by `corpus::render`): `{P}` the persona asked about or
//! speaking, `{she}`/`{her}` their pronouns, `{K}` the key concept, `{v}` the kind's verb,
//! `{v3}` its third-person past, `{V}` the fact's value (`{aV}` with an article, `{Vcap}`
//! capitalised), `{V2}`/`{aV2}` another value of the same key (filler), `{N}` a relative's
//! name, `{rs}`/`{ro}` the relative's pronouns, `{lead}` an opener, `{when}` a relative time,
//! `{day}` a weekday, `{Addr}` "Name, " or nothing, `{other}` a third party (never a
//! relative), `{Third}` a persona not in the conversation, plus small-talk slots.
//!
//! Synonym rows are `"answer side|question side|third person"`; a missing part repeats the
//! first. An answer (and a follow-up) is written with the answer side of the row it draws; a
//! question (and an ask or third-party filler turn) with the question side of the row *it*
//! draws, independently. Paraphrased questions draw rows other than the answer's.

/// A persona: name, subject and possessive pronoun.
pub struct Persona {
    pub name: &'static str,
    pub she: &'static str,
    pub her: &'static str,
}

pub const PERSONAS: &[Persona] = &[
    Persona {
        name: "Caroline",
        she: "she",
        her: "her",
    },
    Persona {
        name: "Melanie",
        she: "she",
        her: "her",
    },
    Persona {
        name: "Jonas",
        she: "he",
        her: "his",
    },
    Persona {
        name: "Priya",
        she: "she",
        her: "her",
    },
    Persona {
        name: "Tomasz",
        she: "he",
        her: "his",
    },
    Persona {
        name: "Aiko",
        she: "she",
        her: "her",
    },
];

/// Pronouns of a relative (or a pet): 0 either, 1 she, 2 he.
pub type Pron = u8;

/// One concept a fact is about (a car, a sister, a support group meeting, ...).
pub struct Key {
    pub id: &'static str,
    /// One fact per persona and group, so that no question has a second, unlisted answer
    /// (an opinion on the gym and a reason for quitting it would both "say something about
    /// the gym").
    pub group: &'static str,
    /// Synonym rows (`answer|question`).
    pub forms: &'static [&'static str],
    /// What a fact states (empty: the fact is the event itself).
    pub values: &'static [&'static str],
    pub pron: Pron,
    /// Key-specific templates (collections); empty: the kind's.
    pub answers: &'static [&'static str],
    pub questions: &'static [&'static str],
    pub asks: &'static [&'static str],
    pub others: &'static [&'static str],
}

const fn key(
    id: &'static str,
    group: &'static str,
    forms: &'static [&'static str],
    values: &'static [&'static str],
) -> Key {
    Key {
        id,
        group,
        forms,
        values,
        pron: 0,
        answers: &[],
        questions: &[],
        asks: &[],
        others: &[],
    }
}

const fn relative(id: &'static str, forms: &'static [&'static str], pron: Pron) -> Key {
    Key {
        id,
        group: id,
        forms,
        values: &[],
        pron,
        answers: &[],
        questions: &[],
        asks: &[],
        others: &[],
    }
}

const fn collection(
    id: &'static str,
    group: &'static str,
    values: &'static [&'static str],
    answers: &'static [&'static str],
    questions: &'static [&'static str],
    asks: &'static [&'static str],
    others: &'static [&'static str],
) -> Key {
    Key {
        id,
        group,
        forms: &[],
        values,
        pron: 0,
        answers,
        questions,
        asks,
        others,
    }
}

/// How the questions about a kind are scored.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Shape {
    /// One turn states the fact (single-hop and paraphrase questions).
    Single,
    /// A relative: one turn (single-hop), or an introduction naming the relative and a later
    /// turn stating the fact by name only (multi-hop).
    Relative,
    /// An event whose date is asked (temporal questions).
    Event,
    /// Two items in two sessions (multi-hop).
    Collection,
}

/// A kind of fact, with the templates it is written and asked with.
pub struct Kind {
    pub id: &'static str,
    pub shape: Shape,
    pub keys: &'static [Key],
    /// Synonym rows of the kind's verb (`answer|question|third person`); may be empty.
    pub verbs: &'static [&'static str],
    /// Values when the keys have none (relatives' jobs and cities).
    pub values: &'static [&'static str],
    pub answers: &'static [&'static str],
    pub questions: &'static [&'static str],
    /// Filler: the partner asks about the key (question vocabulary, no answer).
    pub asks: &'static [&'static str],
    /// A later mention by the same persona, without the value (or the date).
    pub follows: &'static [&'static str],
    /// Filler: a third party and the same vocabulary.
    pub others: &'static [&'static str],
    /// Relatives, multi-hop: the introduction, then the fact by name only.
    pub intros: &'static [&'static str],
    pub seconds: &'static [&'static str],
}

const NONE: &[&str] = &[];

// ---------------------------------------------------------------------------------------------
// Values
// ---------------------------------------------------------------------------------------------

pub const PET_NAMES: &[&str] = &[
    "Biscuit",
    "Pepper",
    "Luna",
    "Mochi",
    "Rufus",
    "Ziggy",
    "Clementine",
    "Waffles",
    "Juniper",
    "Bowie",
    "Nacho",
    "Pickles",
    "Olive",
    "Tofu",
    "Maple",
    "Basil",
    "Sprout",
    "Pixel",
];

pub const JOBS: &[&str] = &[
    "nurse",
    "firefighter",
    "pharmacist",
    "architect",
    "plumber",
    "airline pilot",
    "pastry chef",
    "software engineer",
    "marine biologist",
    "high school teacher",
    "paramedic",
    "carpenter",
    "lawyer",
    "dentist",
    "journalist",
    "electrician",
    "veterinarian",
    "librarian",
    "physiotherapist",
    "accountant",
];

pub const CITIES: &[&str] = &[
    "Lisbon",
    "Montreal",
    "Osaka",
    "Nairobi",
    "Tallinn",
    "Valparaiso",
    "Edinburgh",
    "Hanoi",
    "Porto",
    "Wellington",
    "Krakow",
    "Cape Town",
    "Reykjavik",
    "Bologna",
    "Busan",
    "Quito",
    "Tbilisi",
    "Leipzig",
];

/// Relatives' names (each used once), by pronoun.
pub const FEMALE_NAMES: &[&str] = &[
    "Anna",
    "Sofia",
    "Ines",
    "Greta",
    "Hana",
    "Nora",
    "Lena",
    "Yara",
    "Zoe",
    "Mira",
    "Leila",
    "Freya",
    "Elif",
    "Ida",
    "Talia",
    "Carmen",
    "Amara",
    "Selin",
    "Maren",
    "Noor",
    "Esme",
    "Linnea",
    "Saoirse",
    "Vera",
    "Adaeze",
    "Chiara",
    "Eun-ji",
    "Gwen",
    "Isla",
    "Kaia",
    "Maya",
    "Olga",
    "Rosa",
    "Tove",
    "Valentina",
    "Wanjiru",
    "Zainab",
    "Alba",
    "Cosima",
    "Ebba",
    "Giulia",
    "Ingrid",
    "Kamila",
    "Nadia",
    "Orla",
    "Rania",
    "Thea",
    "Vivienne",
    "Ximena",
    "Zofia",
    "Birgit",
    "Dagny",
    "Fiona",
    "Halima",
    "Jorunn",
    "Liv",
    "Nell",
    "Ottilie",
    "Priscilla",
    "Sunniva",
    "Ulla",
    "Astrid",
    "Beatriz",
    "Daria",
    "Emilia",
];
pub const MALE_NAMES: &[&str] = &[
    "Lukas", "Mateo", "Rafael", "Omar", "Felix", "Dmitri", "Kofi", "Emil", "Tariq", "Oskar",
    "Jonah", "Ravi", "Samir", "Bruno", "Niko", "Viktor", "Hugo", "Arjun", "Pablo", "Anton",
    "Idris", "Marco", "Teo", "Wim", "Bastian", "Dario", "Farid", "Henrik", "Jasper", "Lorenzo",
    "Nils", "Pavel", "Quentin", "Stellan", "Ulrich", "Xavier", "Yusuf", "Benedikt", "Desmond",
    "Fabian", "Hamid", "Joaquin", "Luca", "Magnus", "Piet", "Soren", "Umar", "Wilhelm", "Yosef",
    "Aurelio", "Cyrus", "Elio", "Gideon", "Ilya", "Kasimir", "Matteo", "Quinn", "Rune", "Tobias",
    "Alvaro", "Bram", "Casper", "Dev",
];

const OPINIONS: &[&str] = &[
    "it was way better than I expected",
    "honestly it felt a bit overwhelming",
    "everyone there made me feel at home",
    "it's pricey but worth every penny",
    "I was nervous at first but now I love it",
    "it has been a real source of strength for me",
    "the people are kind but it's so disorganized",
    "it completely changed how I see things",
    "I left feeling lighter than I have in months",
    "the atmosphere is warm and nobody judges you",
    "it's a lot of work but I'm learning so much",
    "I'm not sure it's the right fit for me",
    "the staff were patient with all my questions",
    "it reminded me why I care about this stuff",
    "it's chaotic in the best way",
    "I felt out of place the whole time",
];

const REASONS: &[&str] = &[
    "the schedule clashed with my new shifts",
    "it got way too expensive",
    "my knee started acting up",
    "the instructor left and it wasn't the same",
    "the commute there took over an hour",
    "I just didn't have the energy anymore",
    "some drama in the group made it awkward",
    "I wanted my evenings back",
    "I moved too far away from it",
    "it stopped being fun and started feeling like a chore",
];

// ---------------------------------------------------------------------------------------------
// Kinds
// ---------------------------------------------------------------------------------------------

const PURCHASE_KEYS: &[Key] = &[
    key(
        "car",
        "car",
        &["car", "vehicle", "automobile"],
        &[
            "red Subaru Outback",
            "used Honda Civic",
            "silver Toyota Prius",
            "blue Volkswagen Golf",
            "white Ford Fiesta",
            "green Mazda 3",
        ],
    ),
    key(
        "bike",
        "bike",
        &["bike", "bicycle", "two-wheeler"],
        &[
            "Trek hybrid",
            "vintage Peugeot racer",
            "folding Brompton",
            "Cannondale Topstone",
            "Giant Escape",
        ],
    ),
    key(
        "camera",
        "camera",
        &["camera", "digital camera", "photography gear"],
        &[
            "Fujifilm X100V",
            "Canon EOS R6",
            "Sony A7 III",
            "Nikon Z5",
            "Olympus OM-1",
        ],
    ),
    key(
        "laptop",
        "laptop",
        &["laptop", "notebook computer", "portable computer"],
        &[
            "ThinkPad X1 Carbon",
            "MacBook Air",
            "Dell XPS 13",
            "Framework 13",
            "Asus Zenbook",
        ],
    ),
    key(
        "couch",
        "couch",
        &["couch", "sofa", "settee"],
        &[
            "green velvet three-seater",
            "grey corner sectional",
            "leather chesterfield",
            "mustard yellow loveseat",
        ],
    ),
    key(
        "watch",
        "watch",
        &["watch", "wristwatch", "timepiece"],
        &[
            "Casio G-Shock",
            "Seiko diver",
            "Garmin Forerunner",
            "Fitbit Sense",
        ],
    ),
    key(
        "apartment",
        "home",
        &["apartment", "flat", "condo"],
        &[
            "two-bedroom place near the river",
            "loft above a bakery",
            "studio in the old town",
            "one-bedroom unit with a balcony",
        ],
    ),
    key(
        "phone",
        "phone",
        &["phone", "smartphone", "mobile"],
        &[
            "Pixel 8",
            "iPhone 15",
            "Fairphone 5",
            "Galaxy S23",
            "Nothing Phone",
        ],
    ),
    key(
        "coffee machine",
        "coffee",
        &["coffee machine", "espresso maker", "coffee maker"],
        &[
            "Breville Barista Express",
            "De'Longhi Dedica",
            "Gaggia Classic",
            "Bialetti moka pot",
        ],
    ),
];

const PET_KEYS: &[Key] = &[
    key("dog", "dog", &["dog", "puppy", "pup"], PET_NAMES),
    key("cat", "cat", &["cat", "kitten", "kitty"], PET_NAMES),
    key("rabbit", "rabbit", &["rabbit", "bunny"], PET_NAMES),
    key("parrot", "parrot", &["parrot", "bird"], PET_NAMES),
    key("hamster", "hamster", &["hamster", "pet rodent"], PET_NAMES),
    key("tortoise", "tortoise", &["tortoise", "turtle"], PET_NAMES),
];

const OPINION_KEYS: &[Key] = &[
    key(
        "adoption agency",
        "adoption",
        &[
            "adoption agency",
            "agency that places children with families",
            "organization that matches kids with new parents",
        ],
        OPINIONS,
    ),
    key(
        "new job",
        "job",
        &["new job", "new position", "new role at work"],
        OPINIONS,
    ),
    key(
        "book club",
        "book club",
        &["book club", "reading group", "literature circle"],
        OPINIONS,
    ),
    key(
        "pottery studio",
        "pottery",
        &["pottery studio", "ceramics workshop", "clay course"],
        OPINIONS,
    ),
    key(
        "therapist",
        "therapist",
        &["therapist", "counselor", "mental health professional"],
        OPINIONS,
    ),
    key(
        "gym",
        "gym",
        &["gym", "fitness center", "health club"],
        OPINIONS,
    ),
    key(
        "choir",
        "choir",
        &["choir", "singing group", "vocal ensemble"],
        OPINIONS,
    ),
    key(
        "community garden",
        "garden",
        &[
            "community garden",
            "shared allotment",
            "neighborhood vegetable plot",
        ],
        OPINIONS,
    ),
    key(
        "animal shelter",
        "shelter",
        &["animal shelter", "rescue center for pets", "pet rescue"],
        OPINIONS,
    ),
    key(
        "language school",
        "languages",
        &[
            "language school",
            "language course",
            "evening language classes",
        ],
        OPINIONS,
    ),
    key(
        "meditation retreat",
        "retreat",
        &[
            "meditation retreat",
            "silent retreat",
            "mindfulness weekend",
        ],
        OPINIONS,
    ),
    key(
        "farmers market",
        "market",
        &[
            "farmers market",
            "weekend produce market",
            "market with local growers",
        ],
        OPINIONS,
    ),
    key(
        "library",
        "library",
        &["public library", "local library", "library branch"],
        OPINIONS,
    ),
    key(
        "coworking space",
        "coworking",
        &["coworking space", "shared office", "hot-desking place"],
        OPINIONS,
    ),
];

const FAVORITE_KEYS: &[Key] = &[
    key(
        "food",
        "food",
        &["food", "dish", "meal"],
        &[
            "lasagna",
            "sushi",
            "pho",
            "enchiladas",
            "butter chicken",
            "mushroom risotto",
        ],
    ),
    key(
        "movie",
        "movie",
        &["movie", "film", "flick"],
        &[
            "Spirited Away",
            "The Princess Bride",
            "Arrival",
            "Paddington 2",
            "Amélie",
        ],
    ),
    key(
        "band",
        "band",
        &["band", "music group", "musical act"],
        &[
            "Fleetwood Mac",
            "Radiohead",
            "ABBA",
            "Khruangbin",
            "The Beatles",
        ],
    ),
    key(
        "book",
        "books",
        &["book", "novel", "read"],
        &[
            "Little Women",
            "Dune",
            "The Hobbit",
            "Anne of Green Gables",
            "Rebecca",
        ],
    ),
    key(
        "season",
        "season",
        &["season", "time of year"],
        &["autumn", "spring", "winter", "summer"],
    ),
    key(
        "holiday",
        "holiday",
        &["holiday", "celebration of the year"],
        &[
            "Thanksgiving",
            "Diwali",
            "Lunar New Year",
            "Halloween",
            "Christmas",
        ],
    ),
    key(
        "color",
        "color",
        &["color", "colour", "shade"],
        &[
            "teal",
            "burnt orange",
            "lavender",
            "forest green",
            "mustard yellow",
        ],
    ),
    key(
        "podcast",
        "podcast",
        &["podcast", "audio show", "show to listen to"],
        &[
            "Radiolab",
            "Hidden Brain",
            "99% Invisible",
            "Reply All",
            "Song Exploder",
        ],
    ),
    key(
        "board game",
        "game",
        &["board game", "tabletop game", "game to play with friends"],
        &["Catan", "Wingspan", "Ticket to Ride", "Codenames", "Azul"],
    ),
    key(
        "snack",
        "snack",
        &["snack", "treat", "nibble"],
        &[
            "salted popcorn",
            "dark chocolate",
            "pretzels",
            "dried mango",
        ],
    ),
    key(
        "drink",
        "drink",
        &["drink", "beverage"],
        &["chai latte", "iced coffee", "hibiscus tea", "lemonade"],
    ),
];

const QUIT_KEYS: &[Key] = &[
    key(
        "gym",
        "gym",
        &["gym", "fitness center", "health club"],
        REASONS,
    ),
    key("choir", "choir", &["choir", "singing group"], REASONS),
    key(
        "book club",
        "book club",
        &["book club", "reading group"],
        REASONS,
    ),
    key(
        "yoga class",
        "yoga",
        &["yoga class", "yoga sessions", "yoga studio"],
        REASONS,
    ),
    key(
        "soccer team",
        "sports",
        &["soccer team", "football club", "five-a-side team"],
        REASONS,
    ),
    key(
        "night class",
        "night class",
        &["night class", "evening course", "adult education class"],
        REASONS,
    ),
    key(
        "dance class",
        "dance",
        &["salsa class", "dance lessons"],
        REASONS,
    ),
    key(
        "running club",
        "sports",
        &["running club", "jogging group"],
        REASONS,
    ),
];

const RELATIVE_KEYS: &[Key] = &[
    relative("sister", &["sister", "younger sister", "sis"], 1),
    relative("brother", &["brother", "older brother", "big brother"], 2),
    relative("cousin", &["cousin", "first cousin"], 0),
    relative("aunt", &["aunt", "auntie"], 1),
    relative("uncle", &["uncle"], 2),
    relative("mom", &["mom", "mother", "mum"], 1),
    relative("dad", &["dad", "father"], 2),
    relative("grandmother", &["grandmother", "grandma", "nana"], 1),
    relative(
        "best friend",
        &["best friend", "closest friend", "oldest friend"],
        0,
    ),
    relative("roommate", &["roommate", "flatmate", "housemate"], 0),
    relative("niece", &["niece", "sister's daughter"], 1),
    relative("nephew", &["nephew", "brother's son"], 2),
    relative("grandfather", &["grandfather", "grandpa", "granddad"], 2),
    relative("godmother", &["godmother", "godparent"], 1),
    relative("stepbrother", &["stepbrother", "stepsibling"], 2),
];

const RELATIVE_INTROS: &[&str] = &[
    "{lead}my {K} {N} is coming to stay with us next week.",
    "Had dinner with my {K} {N} last night, so much fun.",
    "My {K} {N} called me today and we talked for hours.",
    "{lead}I spent the whole afternoon with my {K} {N}.",
];

const EVENT_KEYS: &[Key] = &[
    key(
        "support group",
        "support group",
        &[
            "went to a support group|go to a support group",
            "attended a peer support meeting|attend a peer support meeting",
            "joined a circle of people going through the same thing|join a circle of people going through the same thing",
        ],
        NONE,
    ),
    key(
        "marathon",
        "sports",
        &[
            "ran a marathon|run a marathon",
            "finished a 42k race|finish a 42k race",
            "completed the city marathon|complete the city marathon",
        ],
        NONE,
    ),
    key(
        "job interview",
        "job",
        &[
            "had a job interview|have a job interview",
            "interviewed for a position|interview for a position",
            "met with a hiring panel|meet with a hiring panel",
        ],
        NONE,
    ),
    key(
        "concert",
        "concert",
        &[
            "went to a concert|go to a concert",
            "saw a band play live|see a band play live",
            "attended a live music show|attend a live music show",
        ],
        NONE,
    ),
    key(
        "moving",
        "home",
        &[
            "moved into a new apartment|move into a new apartment",
            "got the keys to my new flat|get the keys to {her} new flat",
            "relocated to a new place|relocate to a new place",
        ],
        NONE,
    ),
    key(
        "pottery",
        "pottery",
        &[
            "took a pottery class|take a pottery class",
            "tried a ceramics workshop|try a ceramics workshop",
            "made a bowl on a pottery wheel|make a bowl on a pottery wheel",
        ],
        NONE,
    ),
    key(
        "camping",
        "camping",
        &[
            "went camping|go camping",
            "slept in a tent in the mountains|sleep in a tent in the mountains",
            "spent the night at a campsite|spend the night at a campsite",
        ],
        NONE,
    ),
    key(
        "museum",
        "museum",
        &[
            "visited the art museum|visit the art museum",
            "went to a gallery exhibition|go to a gallery exhibition",
            "saw the new exhibit at the museum|see the new exhibit at the museum",
        ],
        NONE,
    ),
    key(
        "doctor",
        "doctor",
        &[
            "had a check-up at the doctor|have a check-up at the doctor",
            "saw my physician|see {her} physician",
            "went for a medical appointment|go for a medical appointment",
        ],
        NONE,
    ),
    key(
        "wedding",
        "wedding",
        &[
            "went to a wedding|go to a wedding",
            "attended my friend's wedding|attend a friend's wedding",
            "watched two friends get married|watch two friends get married",
        ],
        NONE,
    ),
    key(
        "food bank",
        "food bank",
        &[
            "volunteered at the food bank|volunteer at the food bank",
            "helped out at the soup kitchen|help out at the soup kitchen",
            "spent the day sorting donations for people in need|spend a day sorting donations for people in need",
        ],
        NONE,
    ),
    key(
        "charity run",
        "sports",
        &[
            "did a charity 5k|do a charity 5k",
            "ran a fundraiser race|run a fundraiser race",
            "jogged five kilometers for a good cause|jog five kilometers for a good cause",
        ],
        NONE,
    ),
    key(
        "hiking",
        "sports",
        &[
            "went hiking|go hiking",
            "climbed a mountain trail|climb a mountain trail",
            "trekked up to the summit|trek up to the summit",
        ],
        NONE,
    ),
    key(
        "beach",
        "beach",
        &[
            "went to the beach|go to the beach",
            "spent the day by the sea|spend a day by the sea",
            "swam in the ocean|swim in the ocean",
        ],
        NONE,
    ),
    key(
        "haircut",
        "haircut",
        &[
            "got a haircut|get a haircut",
            "had my hair cut short|have {her} hair cut short",
            "went to the barber|go to the barber",
        ],
        NONE,
    ),
    key(
        "pride parade",
        "pride",
        &[
            "went to the pride parade|go to the pride parade",
            "marched in the pride march|march in the pride march",
            "celebrated at the pride festival|celebrate at the pride festival",
        ],
        NONE,
    ),
    key(
        "cooking class",
        "food",
        &[
            "took a cooking class|take a cooking class",
            "learned to make pasta at a workshop|learn to make pasta at a workshop",
            "joined a culinary course|join a culinary course",
        ],
        NONE,
    ),
    key(
        "tattoo",
        "tattoo",
        &[
            "got a tattoo|get a tattoo",
            "had some ink done|have some ink done",
            "got a small design inked on my arm|get a design inked on {her} arm",
        ],
        NONE,
    ),
    key(
        "school talk",
        "school talk",
        &[
            "gave a talk at a school|give a talk at a school",
            "spoke to students about my work|speak to students about {her} work",
            "presented at a career day|present at a career day",
        ],
        NONE,
    ),
    key(
        "driving test",
        "driving",
        &[
            "passed my driving test|pass {her} driving test",
            "got my driver's license|get {her} driver's license",
            "passed the road exam|pass the road exam",
        ],
        NONE,
    ),
];

const COLLECTION_KEYS: &[Key] = &[
    collection(
        "instruments",
        "instruments",
        &[
            "violin",
            "cello",
            "piano",
            "ukulele",
            "clarinet",
            "drums",
            "saxophone",
            "harp",
            "banjo",
            "trumpet",
        ],
        &[
            "{lead}I've been practicing the {V} every evening.",
            "{lead}my {V} lessons are going better than I expected.",
            "Finally played a whole song on the {V} without mistakes!",
        ],
        &[
            "What instruments does {P} play?",
            "Which musical instruments is {P} learning?",
        ],
        &["{Addr}do you play any instruments?"],
        &["My {other} plays the {V2} in a band."],
    ),
    collection(
        "sports",
        "sports",
        &[
            "rock climbing",
            "tennis",
            "rowing",
            "fencing",
            "volleyball",
            "surfing",
            "archery",
            "judo",
            "badminton",
            "kickboxing",
        ],
        &[
            "{lead}I tried {V} for the first time and loved it.",
            "My {V} sessions are the highlight of my week.",
            "{lead}I signed up for {V} at the community center.",
        ],
        &["What sports has {P} tried?", "Which sports does {P} do?"],
        &["{Addr}are you doing any sports these days?"],
        &["My {other} is obsessed with {V2}."],
    ),
    collection(
        "countries",
        "countries",
        &[
            "Portugal", "Japan", "Peru", "Morocco", "Iceland", "Vietnam", "Greece", "Norway",
            "Mexico", "Kenya", "Chile", "Croatia",
        ],
        &[
            "{lead}I just got back from {V}, the food was unreal.",
            "My trip to {V} was incredible.",
            "{lead}I spent two weeks in {V} and didn't want to leave.",
        ],
        &[
            "What countries has {P} visited?",
            "Where has {P} traveled abroad?",
            "Which countries did {P} go to on vacation?",
        ],
        &["{Addr}where should I travel next?"],
        &["My {other} is moving to {V2} next year."],
    ),
    collection(
        "languages",
        "languages",
        &[
            "Spanish",
            "Japanese",
            "Portuguese",
            "Korean",
            "Italian",
            "German",
            "Arabic",
            "Swahili",
            "Greek",
            "Dutch",
        ],
        &[
            "{lead}my {V} lessons are paying off, I ordered lunch without switching to English!",
            "Practicing {V} with an app every morning.",
            "{lead}I can finally read a short story in {V}.",
        ],
        &[
            "What languages is {P} learning?",
            "Which languages does {P} study?",
        ],
        &["{Addr}do you speak any other languages?"],
        &["My {other} speaks fluent {V2}."],
    ),
    collection(
        "books",
        "books",
        &[
            "Circe",
            "The Overstory",
            "Piranesi",
            "Station Eleven",
            "Educated",
            "Klara and the Sun",
            "The Remains of the Day",
            "Pachinko",
            "Beloved",
            "Middlemarch",
        ],
        &[
            "{lead}I finished {V} last night, couldn't put it down.",
            "{V} made me cry on the train this morning.",
            "{lead}I'm halfway through {V} and it's brilliant.",
        ],
        &[
            "What books has {P} read?",
            "Which novels has {P} been reading?",
        ],
        &["{Addr}read anything good lately?"],
        &["My {other} recommended {V2} to me."],
    ),
    collection(
        "dishes",
        "food",
        &[
            "shakshuka",
            "pad thai",
            "lasagna",
            "ramen",
            "paella",
            "pierogi",
            "jollof rice",
            "risotto",
            "tagine",
            "dumplings",
        ],
        &[
            "{lead}I made {V} from scratch tonight!",
            "My {V} turned out perfect this time.",
            "{lead}I cooked {V} for friends and there were no leftovers.",
        ],
        &[
            "What dishes has {P} cooked?",
            "What has {P} cooked at home?",
        ],
        &["{Addr}cooked anything fun lately?"],
        &["My {other} makes the best {V2}."],
    ),
];

pub const KINDS: &[Kind] = &[
    Kind {
        id: "purchase",
        shape: Shape::Single,
        keys: PURCHASE_KEYS,
        verbs: &[
            "bought|buy|bought",
            "purchased|purchase|purchased",
            "picked up|pick up|picked up",
            "finally got myself|get|got",
            "splurged on|splurge on|splurged on",
        ],
        values: NONE,
        answers: &[
            "{lead}I {v} {aK} last {day}, a {V}!",
            "{lead}I {v} {aK}. It's {aV} and I love it.",
            "{lead}after months of saving I {v} a {V}. Best {K} I've ever had.",
            "New {K} alert: I {v} a {V} this week.",
        ],
        questions: &[
            "What {K} did {P} {v}?",
            "Which {K} did {P} {v} recently?",
            "What kind of {K} did {P} {v}?",
            "What make of {K} does {P} own now?",
        ],
        asks: &[
            "{Addr}did you ever {v} that {K} you wanted?",
            "{Addr}are you still planning to {v} {aK}?",
        ],
        follows: &[
            "Still getting used to the new {K}, honestly.",
            "The {K} is already showing a few scratches, ugh.",
        ],
        others: &[
            "My {other} just {v3} {aK}, {aV2}.",
            "I saw {aV2} for sale on my street, what {aK}.",
        ],
        intros: NONE,
        seconds: NONE,
    },
    Kind {
        id: "pet",
        shape: Shape::Single,
        keys: PET_KEYS,
        verbs: &[
            "adopted|adopt|adopted",
            "brought home|bring home|brought home",
            "rescued|rescue|rescued",
            "took in|take in|took in",
        ],
        values: NONE,
        answers: &[
            "{lead}we {v} {aK} from the shelter last {day}, we named {ro} {V}!",
            "Meet {V}! I {v} this little {K} over the weekend.",
            "{lead}I {v} {aK} and called {ro} {V}.",
            "{lead}we have a new family member: {aK} I {v}. {V} is {rp} name.",
        ],
        questions: &[
            "What is the name of {P}'s {K}?",
            "What did {P} name the {K} {she} {v3}?",
            "What is {P}'s {K} called?",
        ],
        asks: &[
            "{Addr}would you ever {v} {aK}?",
            "{Addr}do you still want to {v} {aK}?",
        ],
        follows: &[
            "The {K} kept me up all night again.",
            "The {K} chewed through another charging cable.",
        ],
        others: &[
            "My {other} {v3} {aK} called {V2}.",
            "There's {aK} at the shelter named {V2}, so sweet.",
        ],
        intros: NONE,
        seconds: NONE,
    },
    Kind {
        id: "opinion",
        shape: Shape::Single,
        keys: OPINION_KEYS,
        verbs: NONE,
        values: NONE,
        answers: &[
            "{lead}I went to the {K} again, and {V}.",
            "Can I tell you about the {K}? {Vcap}.",
            "{lead}about the {K}: {V}.",
            "{lead}the {K} has been on my mind. {Vcap}.",
        ],
        questions: &[
            "What did {P} say about the {K}?",
            "How did {P} describe the {K}?",
            "What was {P}'s impression of the {K}?",
            "How does {P} feel about the {K}?",
        ],
        asks: &[
            "{Addr}how is the {K} going?",
            "{Addr}have you been back to the {K}?",
        ],
        follows: &[
            "Heading to the {K} again tomorrow.",
            "Someone at the {K} asked about you.",
        ],
        others: &[
            "My {other} keeps talking about their {K}.",
            "I heard the {K} downtown is closing.",
        ],
        intros: NONE,
        seconds: NONE,
    },
    Kind {
        id: "favorite",
        shape: Shape::Single,
        keys: FAVORITE_KEYS,
        verbs: &["favorite", "all-time favorite", "go-to", "number one"],
        values: NONE,
        answers: &[
            "{lead}nothing beats {V}, it's my {v} {K} for sure.",
            "If I had to pick one {K}, it'd be {V}, no contest.",
            "{Vcap} is my {v} {K}, always has been.",
        ],
        questions: &[
            "What is {P}'s {v} {K}?",
            "Which {K} does {P} like best?",
            "What {K} does {P} love most?",
        ],
        asks: &["{Addr}what's your {v} {K}?", "{Addr}do you have {av} {K}?"],
        follows: NONE,
        others: &["My {other}'s {v} {K} is {V2}, can you believe it?"],
        intros: NONE,
        seconds: NONE,
    },
    Kind {
        id: "quit",
        shape: Shape::Single,
        keys: QUIT_KEYS,
        verbs: &[
            "stopped going to|stop going to|stopped going to",
            "quit|quit|quit",
            "gave up on|give up on|gave up on",
            "dropped out of|drop out of|dropped out of",
        ],
        values: NONE,
        answers: &[
            "{lead}I {v} the {K} because {V}.",
            "Yeah, I {v} the {K}. Honestly, {V}.",
            "{lead}I {v} the {K} last month; {V}.",
        ],
        questions: &[
            "Why did {P} {v} the {K}?",
            "What made {P} {v} the {K}?",
            "What was {P}'s reason to {v} the {K}?",
        ],
        asks: &[
            "{Addr}are you still going to the {K}?",
            "{Addr}do you ever think about going back to the {K}?",
        ],
        follows: &["Sometimes I miss the {K}, not gonna lie."],
        others: &[
            "My {other} {v3} the {K} too.",
            "Half the people at the {K} {v3} it this year.",
        ],
        intros: NONE,
        seconds: NONE,
    },
    Kind {
        id: "relative-job",
        shape: Shape::Relative,
        keys: RELATIVE_KEYS,
        verbs: &[
            "works as|work as|works as",
            "is employed as|be employed as|is employed as",
            "has a job as|have a job as|has a job as",
            "makes a living as|make a living as|makes a living as",
        ],
        values: JOBS,
        answers: &[
            "{lead}my {K} {N} {v} {aV}, I'm so proud of {ro}.",
            "My {K} {N} {v} {aV} now.",
            "{lead}did I tell you? My {K} {N} {v} {aV}.",
        ],
        questions: &[
            "What does {P}'s {K} do for a living?",
            "What is the job of {P}'s {K}?",
            "What is {P}'s {K}'s profession?",
            "What kind of work does {P}'s {K} do?",
        ],
        asks: &[
            "{Addr}what does your {K} do again?",
            "{Addr}how is your {K} doing these days?",
        ],
        follows: &[
            "My {K} says hi, by the way.",
            "I should call my {K} this weekend.",
        ],
        others: &["My {other} {v3} {aV2}."],
        intros: RELATIVE_INTROS,
        seconds: &[
            "{lead}{N} just got hired as {aV}!",
            "{N} {v} {aV} now and seems really happy.",
            "{lead}{N} told me the {V} training was exhausting but worth it.",
        ],
    },
    Kind {
        id: "relative-city",
        shape: Shape::Relative,
        keys: RELATIVE_KEYS,
        verbs: &[
            "moved to|move to|moved to",
            "relocated to|relocate to|relocated to",
            "packed everything up and left for|leave for|left for",
            "settled down in|settle in|settled in",
        ],
        values: CITIES,
        answers: &[
            "{lead}my {K} {N} {v3} {V} last month.",
            "My {K} {N} {v3} {V}, I already miss {ro}.",
        ],
        questions: &[
            "Where did {P}'s {K} move to?",
            "Which city does {P}'s {K} live in now?",
            "Where does {P}'s {K} live these days?",
            "What city did {P}'s {K} {v}?",
        ],
        asks: &[
            "{Addr}where does your {K} live now?",
            "{Addr}is your {K} still in town?",
        ],
        follows: &["I miss my {K} so much lately."],
        others: &["My {other} {v3} {V2} for work."],
        intros: RELATIVE_INTROS,
        seconds: &[
            "{lead}{N} {v3} {V} last month!",
            "{N} {v3} {V}, so now I have an excuse to visit.",
        ],
    },
    Kind {
        id: "event",
        shape: Shape::Event,
        keys: EVENT_KEYS,
        verbs: NONE,
        values: NONE,
        answers: &["{lead}I {K} {when}, {tail}.", "{lead}{when} I {K}. {Tail}."],
        questions: &[
            "When did {P} {K}?",
            "On what date did {P} {K}?",
            "What day did {P} {K}?",
        ],
        asks: &[
            "{Addr}have you ever wanted to {K}?",
            "{Addr}would you {K} with me sometime?",
        ],
        follows: &[
            "I keep thinking about the day I {K}.",
            "Ever since I {K}, I've felt different.",
        ],
        others: &["My {other} wants to {K} sometime."],
        intros: NONE,
        seconds: NONE,
    },
    Kind {
        id: "collection",
        shape: Shape::Collection,
        keys: COLLECTION_KEYS,
        verbs: NONE,
        values: NONE,
        answers: NONE,
        questions: NONE,
        asks: NONE,
        follows: NONE,
        others: NONE,
        intros: NONE,
        seconds: NONE,
    },
];

// ---------------------------------------------------------------------------------------------
// Filler
// ---------------------------------------------------------------------------------------------

pub const LEADS: &[&str] = &[
    "",
    "",
    "",
    "Guess what, ",
    "Oh, ",
    "So, ",
    "By the way, ",
    "Honestly, ",
    "You won't believe it, but ",
];

pub const WHEN: &[&str] = &[
    "yesterday",
    "last weekend",
    "this morning",
    "last Friday",
    "two days ago",
    "on Saturday",
    "last night",
];

pub const TAILS: &[&str] = &[
    "it was so powerful",
    "still buzzing from it",
    "I'm exhausted but happy",
    "what a day",
    "I'll tell you all about it later",
    "it was more emotional than I expected",
];

pub const DAYS: &[&str] = &[
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
    "weekend",
];

/// Third parties in filler (never relatives: "my cousin works as a nurse" would answer a
/// question about the speaker's cousin).
pub const OTHERS: &[&str] = &[
    "neighbor",
    "coworker",
    "colleague",
    "college buddy",
    "yoga teacher",
    "old classmate",
    "barista at my café",
    "landlord",
];

pub const CHITCHAT: &[&str] = &[
    "Hey {Partner}! How have you been?",
    "That's amazing, I'm so happy for you!",
    "Haha, that sounds exactly like you.",
    "Thanks, {Partner}, that means a lot.",
    "How was your week?",
    "I totally get that.",
    "Wow, tell me more!",
    "Same here, it's been a busy few days.",
    "Take care, talk soon!",
    "That must have been hard.",
    "I'm proud of you, {Partner}.",
    "What are you up to this weekend?",
    "Sounds like a great plan.",
    "Oh no, I'm sorry to hear that.",
    "You always know what to say.",
    "Let's catch up again soon!",
    "I hadn't thought about it that way.",
    "That's so sweet.",
    "Right? I couldn't believe it either.",
    "I've been good, just tired.",
    "Did you sleep at all last night?",
    "It's been ages since we talked, {Partner}!",
    "Ha, classic {Partner}.",
    "Keep me posted!",
    "I love that for you.",
    "Same, honestly.",
    "What made you decide that?",
    "Ugh, Mondays.",
    "I'll send you a picture later.",
    "Fingers crossed for you!",
    "How did that make you feel?",
    "You deserve it, {Partner}.",
    "When did that happen?",
    "Wait, really? Since when?",
    "I'm glad you told me.",
    "That's a big step, {Partner}.",
];

/// Unrelated statements that reuse the questions' vocabulary (work, name, city, favorite,
/// class, date ...) without answering any of them.
pub const SMALL_TALK: &[&str] = &[
    "Work has been hectic, my manager keeps moving deadlines.",
    "It rained all day so I stayed in and watched old sitcoms.",
    "I tried a new recipe for {snack} but burned it.",
    "Traffic was awful today, it took me an hour to get home.",
    "I saw the cutest {animal} on my walk this morning.",
    "My {other} says hi, by the way.",
    "Have you heard from {Third}? It's been a while.",
    "{Third} sent me the funniest video yesterday.",
    "I need a new {thing} at some point, mine is falling apart.",
    "The weather report for {city} says snow next week, can you imagine?",
    "I have so much work this week, I barely sleep.",
    "There's a new café near my place, the coffee is great.",
    "I finally cleaned out my closet, so many old clothes.",
    "My phone died in the middle of a call with {Third}.",
    "I've been binge-watching a show about {aJob} in {city}.",
    "The {job} who lives downstairs fixed our door.",
    "Do you know any good places to eat near the station?",
    "I'm reading a news story about the elections in {country}.",
    "It's my {relative}'s birthday next week and I have no idea what to get.",
    "I spent the evening organizing photos from years ago.",
    "My {other} asked me when I'm going to visit.",
    "Someone in my building plays the {instrument} at midnight.",
    "My back has been sore since last {day}.",
    "We should plan a trip together sometime.",
    "I'm trying to drink more water and less coffee.",
    "What's the date today? I've lost track of time.",
    "I forgot what day it is, this week is a blur.",
    "Last {day} was so relaxing, I did nothing at all.",
    "My {other} keeps asking what my favorite anything is, it's exhausting.",
    "I can never remember the name of that place we went to.",
    "The new {job} at work is really nice.",
    "There's a class on everything these days, even on folding laundry.",
    "I want to get better at saying no to people.",
    "My plants are finally growing again.",
    "I keep meaning to call {Third} back.",
    "The neighbors had a party until three in the morning.",
];

pub const SMALL_SNACKS: &[&str] = &["banana bread", "pancakes", "soup", "flatbread", "granola"];
pub const SMALL_ANIMALS: &[&str] = &["dog", "cat", "puppy", "squirrel", "rabbit", "bird"];
pub const SMALL_THINGS: &[&str] = &["phone", "laptop", "backpack", "bike", "couch", "kettle"];
pub const SMALL_COUNTRIES: &[&str] = &["Brazil", "Canada", "India", "Poland", "Spain", "Egypt"];
pub const SMALL_RELATIVES: &[&str] = &["sister", "brother", "mom", "dad", "cousin", "grandma"];

/// Words a question shares with its answer that say nothing (for the overlap figure only).
pub const STOPWORDS: &[&str] = &[
    "a", "an", "the", "and", "or", "but", "of", "to", "in", "on", "at", "for", "with", "about",
    "from", "by", "as", "is", "are", "was", "were", "be", "been", "being", "do", "does", "did",
    "has", "have", "had", "i", "you", "he", "she", "it", "we", "they", "me", "him", "her", "us",
    "them", "my", "your", "his", "its", "our", "their", "what", "which", "who", "whom", "when",
    "where", "why", "how", "that", "this", "these", "those", "s", "so", "not", "no", "just", "up",
    "out", "into", "over", "all", "any", "some", "there", "here", "than", "then", "too", "very",
    "can", "will", "would", "could", "am", "if", "after", "before", "again", "ever", "really",
    "now", "ve", "m", "d", "ll", "t", "re",
];
