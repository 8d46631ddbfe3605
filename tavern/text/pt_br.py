"""Brazilian Portuguese word classes (`Lexicon` for "pt-BR"). Verb classes list the forms a
rule meets in third-person narration and first-person speech: present, pretérito perfeito
and imperfeito, gerund, participle, infinitive."""

from __future__ import annotations

from tavern.text.lexicon import Lexicon, words_of

LEXICON = Lexicon(
    language="pt-BR",
    stop_words=words_of(
        """
        a o as os um uma uns umas de do da dos das no na nos nas num numa em por pelo pela
        pelos pelas para com sem sob sobre entre até ate ao aos à às e ou mas nem que se
        não nao sim já ja ainda também tambem então entao depois antes agora aqui ali lá la
        onde quando quem qual quais como porque porquê muito muita muitos muitas mais menos
        seu sua seus suas meu minha meus minhas teu tua nosso nossa ele ela eles elas eu tu
        você voce vocês voces nós nos me te lhe lhes isso isto aquilo esse essa esses essas
        este esta estes estas aquele aquela tudo nada algo alguém alguem ninguém ninguem
        cada outro outra outros outras mesmo mesma coisa é e está esta estão estao estou
        estava era foi ser ter tem têm tinha há ha haver vai vou vamos fazer faz fez disse
        diz dizer ver viu bem só so
        """
    ),
    articles=words_of("o a os as um uma uns umas"),
    fillers=words_of("agora ainda de novo novamente também tambem então entao já ja só apenas"),
    pronouns=words_of("eu tu ele ela nós nos vós eles elas você vocês me te o a lhe lhes"),
    speaking=words_of(
        """
        fala falam falou falava falando falar diz dizem disse dizia dizendo dizer pergunta
        perguntam perguntou perguntava perguntando perguntar responde respondem respondeu
        respondia respondendo responder sussurra sussurram sussurrou sussurrava sussurrando
        sussurrar murmura murmuram murmurou murmurava murmurando murmurar grita gritam gritou
        gritava gritando gritar chama chamam chamou chamava chamando chamar conta contam
        contou contava contando contar declara declarou exclama exclamou repete repetiu
        insiste insistiu jura jurou anuncia anunciou acrescenta acrescentou continua continuou
        resmunga resmungou fale diga responda pergunte
        """
    ),
    whispering=words_of("sussurra sussurram sussurrou sussurrava sussurrando sussurrar"),
    moving=words_of(
        """
        anda andam andou andava andando andar caminha caminham caminhou caminhando caminhar
        vai vão vao foi ia indo ir corre correm correu correndo correr sobe sobem subiu
        subindo subir desce descem desceu descendo descer atravessa atravessou atravessando
        atravessar entra entram entrou entrando entrar sai saem saiu saindo sair aproxima
        aproximou aproximando aproximar volta voltam voltou voltando voltar chega chegam
        chegou chegando chegar vem vêm veio vindo vir segue seguem seguiu seguindo seguir
        """
    ),
    perceiving=words_of(
        """
        é são sao era eram foi foram está esta estão estao estava parece parecem pareceu
        parecia permanece permaneceu ouve ouvem ouviu ouvia ouvindo ouvir vê vê veem viu via
        vendo ver nota notam notou notando notar percebe percebem percebeu percebendo
        perceber sente sentem sentiu sentindo sentir cheira cheirou observa observam observou
        observando observar olha olham olhou olhando olhar escuta escutam escutou escutando
        escutar tem têm tinha tinham
        """
    ),
    thinking=words_of(
        """
        pensa pensam pensou pensava pensando pensar imagina imaginou imaginando imaginar
        lembra lembrou lembrando lembrar recorda recordou espera esperou esperando esperar
        deseja desejou desejando desejar acredita acreditou acreditando acreditar teme temeu
        temendo temer suspeita suspeitou suspeitando suspeitar pondera ponderou ponderando
        ponderar decide decidiu decidindo decidir planeja planejou planejando planejar
        considera considerou considerando considerar reflete refletiu refletindo refletir
        """
    ),
    acting=words_of(
        """
        pega pegam pegou pegando pegar dá dao dão deu dando dar abre abrem abriu abrindo
        abrir fecha fecham fechou fechando fechar tranca trancou trancar destranca destrancou
        destrancar empurra empurrou empurrar puxa puxou puxar alcança alcançou alcançar
        segura segurou segurando segurar põe poe pôs pos colocou colocando colocar levanta
        levantou levantar larga largou largar entrega entregou entregar toca tocou tocar
        assina assinou assinar saca sacou sacar golpeia golpeou golpear joga jogou jogar
        derrama derramou derramar esconde escondeu esconder procura procurou procurar examina
        examinou examinar inspeciona inspecionou inspecionar visita visitou visitar traz
        trouxe trazer carrega carregou carregar usa usou usar encontra encontrou encontrar
        verifica verificou verificar mostra mostrou mostrar
        """
    ),
    negations=words_of("não nao nunca jamais ninguém ninguem nenhum nenhuma nada nem"),
    operator_nouns=words_of(
        """
        jogador jogadora jogadores jogadoras usuário usuária usuários usuárias usuario usuaria
        usuarios usuarias operador operadora operadores operadoras
        """
    ),
    operator_qualifiers=words_of(
        "humano humana humanos humanas real reais verdadeiro verdadeira de-verdade"
    ),
    human_nouns=words_of("humano humana"),
    person_nouns=words_of(
        "pessoa pessoas participante participantes indivíduo indivíduos alguém alguem"
    ),
    operator_determiners=words_of(
        """
        o a os as um uma ao à aos às do da dos das pelo pela pelos pelas no na nos nas num
        numa seu sua seus suas nosso nossa nossos nossas este esta estes estas esse essa esses
        essas meu minha
        """
    ),
    operator_exclusions=words_of("de do da dos das mais menos na no nas nos em com"),
    second_person=words_of("você voce vocês voces tu te ti contigo teu tua teus tuas convosco vos"),
    auxiliaries=words_of(
        """
        vai vão vao pode podem deve devem irá irão ira irao está estão esta estao estava
        estavam foi foram tem têm tinha é são era
        """
    ),
    control_verbs=words_of(
        """
        controlado controlada controlados controladas jogado jogada jogados jogadas
        interpretado interpretada interpretados interpretadas conduzido conduzida operado
        operada comandado comandada dirigido dirigida manipulado manipulada pilotado pilotada
        guiado guiada representado representada encarnado encarnada vivido vivida dublado
        dublada
        """
    ),
    role_verbs=words_of(
        """
        controlado controlada controlados controladas interpretado interpretada interpretados
        interpretadas jogado jogada dublado dublada encarnado encarnada vivido vivida
        representado representada
        """
    ),
    controlling_verbs=words_of(
        """
        controla controlam controlou controlava controlando controlar conduz conduzem
        conduziu conduzindo conduzir comanda comandam comandou comandando comandar opera
        operam operou operando operar manipula manipulou manipulando manipular pilota pilotou
        pilotando pilotar
        """
    ),
    typing_verbs=words_of(
        """
        digita digitam digitou digitava digitando digitar digitado digitada digitados
        digitadas digite tecla teclam teclou teclando teclar
        """
    ),
    writing_verbs=words_of(
        """
        escreve escrevem escreveu escrevendo escrever escrito escrita escritos escritas
        escreva envia enviam enviou enviando enviar enviado enviada enviados enviadas envie
        """
    ),
    playing_verbs=words_of(
        """
        joga jogam jogou jogando jogar interpreta interpretam interpretou interpretando
        interpretar
        """
    ),
    choosing_verbs=words_of(
        """
        decide decidem decidiu decidindo decidir escolhe escolhem escolheu escolhendo escolher
        seleciona selecionam selecionou selecionando selecionar decida escolha selecione
        """
    ),
    describing_verbs=words_of(
        """
        descreve descrevem descreveu descrevendo descrever narra narram narrou narrando narrar
        descreva narre
        """
    ),
    waiting_verbs=words_of(
        """
        espera esperam esperou esperando esperar espere aguarda aguardam aguardou aguardando
        aguardar aguarde
        """
    ),
    imperatives=words_of(
        """
        fale diga responda aja decida escolha selecione escreva digite envie descreva narre
        jogue interprete controle
        """
    ),
    message_nouns=words_of("input inputs prompt prompts"),
    input_nouns=words_of(
        """
        entrada entradas mensagem mensagens turno turnos resposta respostas vez jogada jogadas
        fala falas texto textos escolha escolhas comando comandos ação ações
        """
    ),
    interface_nouns=words_of(
        "teclado teclados terminal terminais console consoles computador computadores"
    ),
    avatar_nouns=words_of(
        "avatar avatares personagem personagens persona personas representante marionete peão"
    ),
    conjunctions=words_of("e mas então entao ou enquanto como porém porem depois"),
    attempting=words_of(
        "tenta tentam tentou tentaram tentava tentando tentar tentativa tentativas"
    ),
    outcomes=words_of(
        """
        falha falham falhou falharam fracassa fracassou consegue conseguem conseguiu
        conseguiram sucesso fracasso
        """
    ),
    prepositions=words_of(
        """
        em no na nos nas num numa a ao aos à às de do da dos das com sobre sob perto junto
        dentro fora diante atrás entre ante até ate pelo pela
        """
    ),
    greetings=words_of(
        "olá ola oi saudações saudacoes bem vindo vinda vindos boa bom noite tarde dia"
    ),
    third_person=words_of("ele ela eles elas"),
    first_person=words_of(
        "eu me mim comigo meu minha meus minhas nós nosso nossa nossos nossas conosco"
    ),
    subordinators=words_of("quando enquanto embora porque se caso apesar conforme desde"),
    leads=words_of("quando enquanto depois antes assim logo então entao agora finalmente"),
    adverb_endings=words_of("mente"),
    pre_verbal=words_of(
        "se lhe lhes me te o a os as já ja também tambem ainda nunca sempre logo então entao"
    ),
    progressive_auxiliaries=words_of("está esta estão estao estava estavam"),
    gerund_endings=words_of("ndo"),
    perfect_auxiliaries=words_of("tem têm tinha tinham havia haviam"),
    participle_endings=words_of("ado ada ados adas ido ida idos idas"),
    relatives=words_of("que quem cujo cuja cujos cujas onde"),
    bare_speech=words_of("algo baixinho baixo alto novamente brevemente voz si mesmo mesma"),
    deciding=words_of(
        """
        decide decidem decidiu decidindo decidir planeja planejam planejou planejando
        planejar pretende pretendeu pretendendo resolve resolveu resolvendo considera
        considerou considerando
        """
    ),
    joins=words_of("e com"),
    possessives=words_of("seu sua seus suas meu minha meus minhas teu tua nosso nossa dele dela"),
    placing=words_of("jaz jazem repousa repousam pende pendem descansa descansam fica ficam"),
    numerals=words_of(
        "dois duas três tres quatro cinco seis sete oito nove dez vários varios várias varias"
        " muitos muitas poucos poucas alguns algumas"
    ),
    dangling=words_of(
        """
        o a os as um uma uns umas seu sua seus suas meu minha meus minhas de do da dos das
        e ou mas nem com para pelo pela pelos pelas porque
        """
    ),
    code_nouns=words_of(
        "senha senhas código codigo códigos codigos contrassenha contra-senha palavra-chave"
        " palavra-passe combinação combinacao cifra"
    ),
)
