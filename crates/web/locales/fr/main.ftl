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
# The short form: day and month with two digits.
date-short = { $day }/{ $month }/{ $year }
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
col-tournament = Tournoi
col-status = État
col-card = Fiche
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
# The board picture's accessible name: the status line, as the page shows it.
board-title = Plateau : { $status }
game-over = Partie terminée : { $summary }
to-move = { $side ->
    [white] Aux blancs
   *[black] Aux noirs
} de jouer, coup { $turn }
# How a game ended: the score and the reason, or the reason alone.
result-summary = { $score } ({ $reason })
end-goal = but
end-own-goal = but contre son camp
end-no-legal-turn = aucun coup légal
end-max-turns = limite de coups
end-dead-end = impasse
end-resignation = abandon
end-time = temps dépassé
end-agreement = accord mutuel
end-aborted = partie annulée
end-adjudication = décision de l’arbitre
end-forfeit = forfait
end-over-the-board = jouée sur l’échiquier
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
player-card = fiche
player-tournaments = Tournois joués
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

## La console des organisateurs : connexion, compte

sign-in = Connexion
sign-in-name = Nom
sign-in-password = Mot de passe
sign-in-token-instead = Se connecter plutôt avec un jeton
sign-in-token = Jeton de joueur (hb_…)
sign-in-with-token = Se connecter avec le jeton
sign-in-token-note = Le jeton est échangé une fois contre une session et n’est pas conservé.
sign-in-locked = Trop de connexions échouées depuis cette adresse ; réessayez dans { $seconds } s.
sign-in-bad-token = Ce jeton n’est pas valable (révoqué, expiré ou mal saisi), ou c’est le jeton d’administration, qui n’ouvre aucune session.
sign-in-wrong = Nom ou mot de passe incorrect.
sign-in-no-session = Le serveur a répondu sans ouvrir de session.
error-form-too-large = Le formulaire est trop volumineux.
sign-out = Se déconnecter
sign-out-failed = Déconnexion impossible : { $reason }
sign-out-everywhere = Se déconnecter partout
account-title = Compte
account-heading = Compte : { $name }
account-rights = Droits : { $rights }.
account-sessions = Sessions
account-signed-in = Connecté le
account-where = Où
account-ends = Expire le
account-this-one = (celle-ci)
password-change = Changer le mot de passe
password-current = Mot de passe actuel (si vous en avez un)
password-new = Nouveau mot de passe (8 caractères au moins)
password-again = Nouveau mot de passe, à nouveau
password-differ = Les deux nouveaux mots de passe diffèrent ; rien n’a été changé.
password-changed = Mot de passe changé.
session-this-out = Cette session est fermée.
session-out = La session est fermée.
session-already-out = La session était déjà fermée.
signed-out-everywhere = { $count ->
    [one] Déconnecté partout ({ $count } session).
   *[other] Déconnecté partout ({ $count } sessions).
}

## La console : mes tournois, en créer un

console-nav = console
console-mine = Mes tournois
console-account = Compte ({ $name })
console-none = Vous n’organisez encore aucun tournoi.
console-import-link = Démarrer un tournoi depuis un fichier TRF écrit par un autre logiciel
console-not-organiser = Votre compte n’a pas le droit d’organisateur : demandez à l’administrateur du serveur de vous l’accorder :
console-registration = inscriptions ouvertes
said-unavailable = Le serveur est injoignable ou occupé ; rien n’a été changé. ({ $reason })
said-not-allowed = Non autorisé : { $reason }
field-not-number = { $field } : « { $text } » n’est pas un nombre entier
field-session = session
field-rounds = rondes
field-round = ronde
field-board = table
field-player = joueur
field-rating = cote
field-bye-points = points du bye
create-heading = Créer un tournoi
create-name = Nom
create-where = Où il se joue
create-where-board = En présentiel (résultats saisis ici ; parties classées si le tournoi l’est)
create-where-online = En ligne (parties sur ce serveur, à la pendule)
create-system = Système
system-swiss = Suisse (système hollandais FIDE)
system-round-robin = Toutes rondes
system-double-round-robin = Toutes rondes aller-retour
create-rounds = Rondes (suisse)
create-game = Jeu
game-paper-football = Football sur papier
create-time = Cadence, en secondes : initial+incrément (en ligne ; vide : sans pendule)
create-time-example = 600+5 ou 300+0.5
create-rated = Classé
create-tiebreaks = Départages, dans l’ordre (vide : BH-C1, BH, SB pour un suisse)
create-tiebreak-rules = Règles de départage (FIDE C.07)
create-text-in-force = Le texte en vigueur
create-unrated = Joueurs sans cote dans les départages à la cote : drop, ignore ou une cote
create-bye = Bye d’appariement
create-bye-1 = 1 point
create-bye-half = ½ point
create-bye-0 = 0 point
create-top-seed = Le premier de liste joue à la ronde 1 avec les
create-manual = Apparier chaque ronde moi-même (sinon dès qu’une ronde est finie)
create-self-entry = Les joueurs peuvent s’inscrire eux-mêmes
create-late-entry = Inscriptions tardives après le début (suisse)
create-forfeit-withdraws = Retirer un joueur qui ne commence pas une partie
create-button = Créer le tournoi
time-control-bad = cadence « { $text } » : écrivez-la en secondes sous la forme INITIAL+INCRÉMENT, par exemple 600+5 ou 300+0.5
no-scheduler = Ce serveur n’a pas de gestionnaire de tournois.
created = Tournoi « { $name } » créé (numéro { $id }). Ajoutez maintenant ses joueurs.

## La console : un fichier TRF d’un autre logiciel

import-title = Démarrer depuis un fichier TRF
import-intro = Un suisse commencé dans un autre logiciel (Swiss-Manager, Vega, bbpPairings…) : ses joueurs, leurs cotes et les rondes jouées viennent du fichier, vérifié comme le vérifie cette commande :
import-intro-after = La ronde suivante est ensuite appariée ici comme le fichier l’aurait fait. Les joueurs sont retrouvés par leur nom ; un nom qu’aucun compte ne porte est inscrit.
import-file = Fichier TRF
import-name = Nom (vide : celui du fichier)
import-rounds = Rondes (vide : celles du fichier)
import-board = En présentiel
import-online = En ligne
import-manual = Apparier chaque ronde moi-même
import-accept = Garder les rondes appariées autrement que le moteur ne l’aurait fait (leurs appariements sont maintenus)
import-button = Vérifier et démarrer
import-no-file = Choisissez un fichier TRF à envoyer.
import-unreadable = Le fichier est illisible : { $reason }. Rien n’a été importé.
import-register-failed = Numéro de départ { $rank } ({ $name }) : { $reason }. Rien n’a été importé.
import-refused = Le fichier n’a pas été importé :
imported = Importé : { $players } joueurs, { $played } rondes jouées sur { $rounds }{ $registered ->
    [0] {""}
   *[other] ; { $registered } joueurs inscrits
}.

## La console : diriger un tournoi

error-no-tournament = Ce tournoi n’existe pas.
run-over-the-board = en présentiel
run-online = en ligne
run-rated = classé
run-standings-link = Classement et grille américaine
run-export-trf = Exporter le TRF
run-start = Démarrer et apparier la ronde 1
run-delete = Supprimer ce tournoi
run-pair = Apparier la ronde { $round }
run-finish = Terminer le tournoi
run-results = Résultats de la ronde { $round }
run-all-results = Toutes les tables de la ronde { $round } ont leur résultat.
run-open = Tables encore sans résultat : { $open } sur { $boards }.
run-board = Table { $board }
run-corrected = (corrigé)
run-pairing-bye = bye d’appariement
result-white-wins = Gain des blancs
result-draw = Nulle
result-black-wins = Gain des noirs
result-white-forfeit = Gain des blancs par forfait
result-black-forfeit = Gain des noirs par forfait
result-both-forfeit = Double forfait
correct-heading = Corriger un résultat
correct-note = Une correction change la table, sa partie, le TRF, le classement et les cotes. Une fois la ronde suivante appariée, ses appariements restent tels quels.
correct-board = Table
round-board-of = Ronde { $round }, table { $board }
correct-result = Résultat exact
correct-why = Motif (conservé avec la correction)
correct-button = Corriger le résultat
run-players = Joueurs ({ $count })
run-col-number = N°
run-col-name = Nom
run-joined = (depuis la ronde { $round })
run-withdraw = Retirer
run-withdraw-who = Retirer { $name }
bye-heading = Demander un bye
bye-player = Joueur
bye-round = Ronde
bye-kind = Bye
bye-kind-half = demi-point
bye-kind-zero = zéro point
bye-button = Demander le bye
apart-heading = Joueurs qui ne doivent pas se rencontrer
apart-pair = { $first } et { $second }
apart-undo = Peuvent de nouveau se rencontrer
apart-first = Joueur
apart-second = ne doit pas rencontrer
apart-button = Les séparer
add-heading = Ajouter des joueurs
add-find = Chercher un compte par nom
add-find-button = Chercher
add-none = Aucun compte ne porte un nom avec ces mots.
add-entered = inscrit
add-rating = cote
add-rating-auto = auto
add-who = Ajouter { $name }
add-button = Ajouter
register-heading = Inscrire un nouveau joueur
register-name = Nom (toute écriture)
register-rating = Cote de départ (vide : celle de la liste de classement)
register-button = Inscrire et ajouter
done-started = Démarré avec { $count } joueurs ; la ronde 1 est appariée.
done-finished = Le tournoi est terminé : son classement final est sur sa page.
done-paired = La ronde { $round } est appariée.
done-deleted = Le tournoi est supprimé.
done-board-said = Ronde { $round }, table { $board } : { $reason }
done-recorded = Ronde { $round }, table { $board } : { $result } enregistré.
done-choose-board = table « { $key } » : choisissez une table dans la liste
done-corrected = Ronde { $round }, table { $board } corrigée de { $was } en { $now } ; le classement, le TRF et les cotes suivent.
done-not-corrected = Ronde { $round }, table { $board } : déjà { $result }, rien à corriger.
done-removed = L’inscription est supprimée.
done-withdrawn = Retiré : plus apparié à partir de la ronde { $round }.
done-bye-half = Un bye d’un demi-point est noté pour la ronde { $round }.
done-bye-zero = Un bye de zéro point est noté pour la ronde { $round }.
done-apart = Ils ne seront plus appariés ensemble à partir de la ronde suivante.
done-already-apart = Ils étaient déjà séparés.
done-may-meet = Ils peuvent de nouveau être appariés ensemble.
done-not-apart = Ils n’étaient pas séparés.
done-entered = { $name } est inscrit (cote { $rating }).
done-registered-not-entered = { $name } est enregistré mais pas inscrit au tournoi : { $reason }
done-registered = { $name } est enregistré et inscrit (cote { $rating }).
details-heading = À propos du tournoi
details-place = Lieu
details-dates = Dates
details-date-range = { $start } – { $end }
details-organiser = Organisateur
details-chief-arbiter = Arbitre principal
details-deputies = Arbitres adjoints
details-time-control = Cadence
details-rating = Classement
details-rules = Règlement
details-round-dates = Dates des rondes
details-round-date = ronde { $round } : { $date }
details-note = Remarque
details-federation = Fédération (trois lettres)
details-start = Premier jour
details-end = Dernier jour
details-one-a-line = un par ligne
details-round-dates-hint = aaaa-mm-jj, une par ligne, ronde 1 d’abord
details-button = Enregistrer les informations
done-details = Les informations sont enregistrées.
done-details-same = Les informations étaient déjà celles-ci.
