# Les pages en français. Chaque message figure aussi dans en/main.ftl et ru/main.ftl, avec les
# mêmes variables (les tests de la crate le vérifient).

## Mise en page, en-tête, erreurs

nav-site = site
nav-rules = Règles
nav-organisers = Organisateurs
nav-language = langue
search-label = Rechercher des joueurs, des tournois et des parties
search-placeholder = Joueur, tournoi, partie
search-button = Rechercher
status-400 = Requête incorrecte
status-403 = Accès interdit
status-404 = Introuvable
status-429 = Trop de requêtes
status-502 = Mauvaise passerelle
status-503 = Service indisponible
status-other = Erreur
error-no-page = Cette page n’existe pas.
error-unreachable = Le serveur de jeu est injoignable ; réessayez dans un instant.
error-server-said = Réponse du serveur de jeu (en anglais) :
error-server = Le serveur de jeu a répondu par une erreur.
error-no-tournaments = Ce serveur ne présente aucun tournoi.
error-no-ladders = Ce serveur ne présente aucun classement.
error-tournament-id = Le numéro d’un tournoi est un entier positif.
error-game-id = Le numéro d’une partie est un entier positif.
error-player-id = Le numéro d’un joueur est un entier positif.
error-no-player = Ce joueur n’existe pas.
error-after = after= attend un numéro de ronde (1, 2, …).
error-no-round = Ce tournoi n’a pas d’appariements pour la ronde { $round }.
error-not-entrant = Ce joueur ne participe pas à ce tournoi.

## Mots communs

none = Néant.
none-found = Aucun résultat.
white = blancs
black = noirs
playing = en cours
rated = classée
unrated = non classée
untimed = sans pendule
player-number = joueur { $id }
game-number = partie { $id }
tournament-number = Tournoi { $id }
round-of = ronde { $round } sur { $rounds }
players-count = { $count ->
    [one] { $count } joueur
   *[other] { $count } joueurs
}
points-count = { $count ->
    [one] { $points } point
   *[other] { $points } points
}
date = { $day ->
    [1] 1er
   *[other] { $day }
} { $month ->
    [1] janvier
    [2] février
    [3] mars
    [4] avril
    [5] mai
    [6] juin
    [7] juillet
    [8] août
    [9] septembre
    [10] octobre
    [11] novembre
   *[12] décembre
} { $year }
date-time = { $date } à { $time } UTC
col-game = Partie
col-games = Parties
col-white = Blancs
col-black = Noirs
col-turns = Coups
col-result = Résultat
col-board = Table
col-player = Joueur
col-rating = Cote
col-points = Points
col-rank = Pl.
col-rank-title = place
col-rank-long = Place
col-final-rank-title = place finale
col-start-rank-title = numéro de départ
col-number = N°
col-round-short = R{ $round }
col-colour = Couleur
col-opponent = Adversaire
col-score = Total
col-rating-change = Variation de cote
col-won = Gagnées
col-drawn = Nulles
col-lost = Perdues
col-was = Avant
col-now = Après
col-by = Par
col-why = Motif

## Accueil

home-title = Parties en direct, tournois et classements
home-live = Parties en direct
home-finished = Terminées récemment
home-tournaments = Tournois
home-ladders = Classements
home-no-rated = Aucune partie classée pour l’instant.

## Un tournoi

status-registration = inscriptions ouvertes
status-running = en cours
status-finished = terminé
status-unknown = inconnu
over-the-board = joué en présentiel
online = joué en ligne
print-link = Imprimer appariements et classement
statistics-link = Statistiques
standings-before = Classement avant la ronde 1
standings-after = Classement après la ronde { $round }
standings-nav = classement après la ronde
standings-nav-label = Après la ronde :
round-heading = Ronde { $round }
crosstable = Grille américaine
by-start-rank = par numéro de départ
by-final-rank = par place finale
cross-white = b
cross-black = n
bye = exempt
bye-half = bye (½ point)
bye-zero = bye (0 point)
absent = absent
not-paired = non apparié
corrections = Corrections de résultats
correction-after-pairing = (après l’appariement de la ronde suivante : ses appariements sont maintenus)
tiebreak-rules = Départages selon FIDE C.07, texte de { $text }. Joueurs sans cote : { $unrated }.
unrated-drop = les départages fondés sur la cote (ARO, TPR, PTP, APRO, APPO, RTNG) sont écartés tant qu’un joueur n’est pas coté, comme le veut la FIDE
unrated-ignore = les départages fondés sur la cote ne comptent que les adversaires cotés
unrated-as = ils comptent comme cotés { $rating }
print-title = { $name } (impression)
print-back = Retour à { $name }
print-note = chaque feuille ci-dessous s’imprime sur sa propre page.
print-round = { $name } : appariements de la ronde { $round }
print-standings = { $name } : classement après la ronde { $round }

## Départages (FIDE C.07)

tb-bh-c1 = Buchholz tronqué 1 : Buchholz sans le plus faible score d’adversaire
tb-bh = Buchholz : somme des scores des adversaires
tb-fb = Buchholz anticipé : Buchholz où chaque partie de la dernière ronde compte comme nulle
tb-aob = moyenne des Buchholz des adversaires
tb-sb = Sonneborn-Berger : somme des scores des adversaires, chacun multiplié par les points marqués contre lui
tb-ps = score cumulé : somme des scores après chaque ronde
tb-ks = Koya : points marqués contre les adversaires ayant au moins la moitié des points
tb-de = confrontation directe : résultats entre les joueurs à égalité
tb-win = rondes gagnées, jouées ou non (un bye ou un gain par forfait compte)
tb-won = parties gagnées sur l’échiquier
tb-std = points standard : chaque ronde compte 1, ½ ou 0, quel que soit le barème
tb-bpg = parties jouées avec les noirs
tb-bwg = parties gagnées avec les noirs
tb-rep = rondes que le joueur a choisi de jouer
tb-vur = rondes volontairement non jouées (moins il y en a, mieux on est classé)
tb-aro = cote moyenne des adversaires
tb-tpr = performance du tournoi
tb-ptp = performance parfaite du tournoi
tb-apro = moyenne des performances des adversaires
tb-appo = moyenne des performances parfaites des adversaires
tb-rtng = cote du joueur
tb-tpn = numéro d’appariement (plus il est petit, mieux on est classé)
tb-unknown = un départage des réglages du tournoi
tb-with-cut = { $meaning }, { $cut }
tb-cut-lowest = { $count ->
    [1] sans le plus faible
   *[other] sans les { $count } plus faibles
}
tb-cut-median = { $count ->
    [1] sans le plus fort ni le plus faible
   *[other] sans les { $count } plus forts ni les { $count } plus faibles
}
tb-cut-other = avec une coupe

## La fiche d’un joueur

card-number = N° { $number }
card-rating = cote { $rating }
card-rank = { $rank ->
    [1] 1re
   *[other] { $rank }e
} place après la ronde { $round }
card-withdrawn = retiré à partir de la ronde { $round }
card-all-games = toutes ses parties et cotes
card-rounds = Rondes
card-rating-change = Variation de cote dans ce tournoi : { $change }
card-performance = Performance { $performance } (FIDE : moyenne des adversaires { $average } plus dp pour { $score } sur { $games } { $games ->
    [one] partie classée
   *[other] parties classées
})
card-tiebreaks = Départages après la ronde { $round }

## Statistiques

statistics-title = { $name } : statistiques
statistics-none = Aucune ronde n’est encore appariée.
chart-round = ronde { $round } : gains des blancs { $white }, nulles { $draws }, gains des noirs { $black }
chart-legend = Gains des blancs · nulles · gains des noirs
stat-round = R
stat-round-title = ronde
stat-games = Part.
stat-games-title = parties jouées
stat-white-title = gain des blancs
stat-draw-title = nulle
stat-black-title = gain des noirs
stat-forfeits = Forf.
stat-forfeits-title = forfaits
stat-byes = Exempts
stat-byes-title = exemptions
stat-upsets = Surpr.
stat-upsets-title = surprises : parties décisives gagnées par le joueur le moins bien coté
stat-gap = Écart
stat-gap-title = écart moyen de cote entre adversaires
stat-open = En cours
stat-open-title = parties encore sans résultat
stat-all = Total

## Une partie

game-title = Partie { $id }
game-heading = Partie { $id } : { $white } – { $black }
game-over = Partie terminée : { $summary }
to-move = { $side ->
    [white] Aux blancs
   *[black] Aux noirs
} de jouer, coup { $turn }
time-control = cadence { $control }
round-board = ronde { $round } · table { $board }
queue = file d’attente
clocks = Pendules :
clock-white = blancs
clock-black = noirs
untimed-game = Sans pendule.
white-label = Blancs :
black-label = Noirs :
download-record = Télécharger la notation de la partie
turns = Coups
replay-label = relecture
replay-showing = Position après le coup { $shown } sur { $total } :
replay-start = « début
replay-previous = ◀ précédent
replay-next = suivant ▶
replay-end = fin »

## Un joueur

chart-history = cote du { $from } au { $to } : de { $first } à { $last }, minimum { $low }, maximum { $high }
ladder-word = Classement
head-to-head = Face-à-face ({ $count ->
    [one] { $count } dernière partie classée
   *[other] { $count } dernières parties classées
})
recent-games = Parties récentes
game-won = gagnée
game-lost = perdue
game-drawn = nulle
game-aborted = interrompue

## Un classement

ladder-title = Classement { $name }
ladder-at-least = Au moins
ladder-rated-games = parties classées
ladder-filter = Filtrer
ladder-empty = Aucun joueur classé ici.
provisional = provisoire
pages = pages
page-previous = Page précédente
page-top = Début
page-next = Page suivante

## Recherche

search-title = Recherche
search-help = Cherchez un joueur ou un tournoi par son nom (ou une partie du nom), ou une partie ou un tournoi par son numéro.
search-results-title = Recherche : { $query }
search-players = Joueurs
search-tournaments = Tournois
search-games = Parties
search-too-long = Une recherche fait au plus { $count } caractères.

## Règles

rules-title = Règles
rules-in-english = Le texte des règles est en anglais.
rules-hanniball-figure = HanniBall : la position initiale (les blancs en bas).
rules-paper-figure = Football sur papier : le terrain et le ballon au départ.
