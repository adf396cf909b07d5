extension Inflections {
    /// English: regular plurals by suffix, the usual irregular words (as
    /// whole words: `human` stays `humans`), and uncountable nouns.
    static var english: Inflections {
        var inflections = Inflections()
        // Suffix rules, from the most general (tried last) to the most
        // specific (tried first).
        inflections.plural("$", "s")
        for (suffix, plural) in [
            ("s", "s"), ("sis", "ses"), ("us", "uses"), ("z", "zes"), ("x", "xes"), ("ch", "ches"), ("sh", "shes"),
            ("ss", "sses"), ("y", "ies"), ("uy", "uys"), ("oy", "oys"), ("iy", "iys"), ("ey", "eys"), ("ay", "ays"),
            ("quy", "quies"),
        ] {
            inflections.plural(suffix + "$", plural)
        }
        for (suffix, singular) in [
            ("s", ""), ("is", "is"), ("us", "us"), ("ss", "ss"), ("zzes", "zz"), ("xes", "x"), ("ches", "ch"),
            ("shes", "sh"), ("sses", "ss"), ("ies", "y"), ("quies", "quy"),
        ] {
            inflections.singular(suffix + "$", singular)
        }
        for (singular, plural) in [
            ("person", "people"), ("man", "men"), ("woman", "women"), ("child", "children"), ("sex", "sexes"),
            ("move", "moves"), ("zombie", "zombies"), ("ox", "oxen"), ("foot", "feet"), ("tooth", "teeth"),
            ("goose", "geese"), ("mouse", "mice"), ("quiz", "quizzes"), ("leaf", "leaves"), ("life", "lives"),
            ("wife", "wives"), ("knife", "knives"), ("wolf", "wolves"), ("half", "halves"), ("shelf", "shelves"),
            ("index", "indices"), ("matrix", "matrices"), ("vertex", "vertices"), ("status", "statuses"),
            ("alias", "aliases"), ("bus", "buses"), ("axis", "axes"), ("crisis", "crises"), ("analysis", "analyses"),
            ("medium", "media"), ("datum", "data"), ("criterion", "criteria"), ("cactus", "cacti"),
            ("octopus", "octopi"), ("virus", "viruses"), ("hero", "heroes"), ("potato", "potatoes"),
            ("tomato", "tomatoes"), ("echo", "echoes"), ("movie", "movies"), ("basis", "bases"), ("thesis", "theses"),
            ("diagnosis", "diagnoses"), ("synopsis", "synopses"), ("campus", "campuses"),
        ] {
            inflections.addIrregular(singular, plural, wholeWord: true)
        }
        inflections.uncountableWords([
            "equipment", "information", "rice", "money", "species", "series", "fish", "sheep", "jeans", "police",
            "news", "data", "metadata", "feedback", "software", "hardware", "staff", "deer", "moose", "aircraft",
        ])
        return inflections
    }
}
