//! The declaration macro of the search settings (`search_settings!`), which
//! `super::config` invokes once with every setting.

/// Declares the search settings. Each entry:
///
/// ```text
/// /// Help line (the CLI's help); further doc lines document the setter and getter.
/// name("key" | "old key", "VALUE", "default shown in --help"): StoredType = default_value;
///     set(argument: ArgType) => stored_value_expression; text TextType;
/// ```
///
/// `text TextType` is what a text value is read as before it goes to the setter. A
/// setting whose unset value each game fills (from its [`Tuning`](crate::games::Tuning)) leaves the shown
/// default out and ends with its accessor, `per_game: /// doc`, then
/// `fn name_for<G: Tuning>(config) -> Type { the value for G, read from config }`.
/// From it come the accessor `SearchConfig::name_for::<G>()`, the game's default as text
/// ([`Setting::default_in`](super::config::Setting::default_in)) and the default `--help` shows, one value per game
/// ([`Setting::per_game`](super::config::Setting::per_game)). `shown(v) => text;` after the accessor says how a value
/// reads when the value type's own way ([`ShownText`](super::setting::ShownText)) is not the key's; a shown default
/// given anyway (`"..."` in the header) is shown in place of the values.
macro_rules! search_settings {
    ($(
        #[doc = $help:literal]
        $(#[doc = $doc:literal])*
        $field:ident($key:literal $(| $alias:literal)?, $value_name:literal $(, $shown:literal)?): $ty:ty = $default:expr;
            set($arg:ident: $arg_ty:ty) => $conv:expr; text $text_ty:ty;
            $(per_game:
                $(#[doc = $for_doc:literal])*
                fn $for_fn:ident<$g:ident: $bound:ident $(+ $bounds:ident)*>($config:ident) -> $for_ty:ty $for_body:block
                $(shown($v:ident) => $render:expr;)?)?
    )*) => {
        /// A validated search configuration. Build one with [`SearchConfig::builder`].
        #[derive(Clone, Debug, PartialEq)]
        pub struct SearchConfig {
            $( pub(crate) $field: $ty, )*
            /// Arena capacity in nodes, resolved by `build` from `nodes` or `memory-mb`.
            pub(crate) arena_capacity: u64,
        }

        impl SearchConfig {
            /// The settings' defaults, before validation (no budget: not yet valid).
            pub(super) fn defaults() -> SearchConfig {
                SearchConfig { $( $field: $default, )* arena_capacity: DEFAULT_ARENA_NODES }
            }
            $(
                #[doc = $help]
                $(#[doc = $doc])*
                pub fn $field(&self) -> $ty {
                    self.$field.clone()
                }
            )*
            $($(
                $(#[doc = $for_doc])*
                pub fn $for_fn<$g: $bound $(+ $bounds)*>(&self) -> $for_ty {
                    let $config = self;
                    $for_body
                }
            )?)*
        }

        impl SearchConfigBuilder {
            $(
                #[doc = $help]
                $(#[doc = $doc])*
                pub fn $field(mut self, $arg: $arg_ty) -> Self {
                    self.config.$field = $conv;
                    self
                }
            )*
        }

        impl Setting {
            /// The default this setting takes in `G` as text (`0.5`, `on`, `biased`), for a
            /// setting whose default each game fills; `None` for the others.
            pub fn default_in<G: Tuning + NTupleBoard>(&self) -> Option<String> {
                let config = SearchConfig::defaults();
                match self.key {
                    $($( $key => Some(shown_value!(config.$for_fn::<G>() $(, $v => $render)?)), )?)*
                    _ => None,
                }
            }
        }

        /// Every search setting, in `--help` order: the one table behind the `search`
        /// command's flags, the `mcts:` player-spec keys and the benchmark's settings.
        pub const SETTINGS: &[Setting] = &[$(
            Setting {
                key: $key,
                alias: setting_alias!($($alias)?),
                value_name: $value_name,
                help: $help,
                default: shown_default!($($shown)?),
                per_game: shown_per_game!($($shown)?),
                apply: |builder, text| Ok(builder.$field(parse_setting::<$text_ty>($key, text)?)),
            },
        )*];
    };
}
