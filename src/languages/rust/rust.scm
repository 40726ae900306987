; Definitions of Rust source. `impl Type` and `impl Trait for Type` blocks qualify their functions by the
; type (`Router.route`); `mod m { … }` qualifies what it holds.

[(struct_item name: (type_identifier) @name)
 (enum_item name: (type_identifier) @name)
 (union_item name: (type_identifier) @name)
 (trait_item name: (type_identifier) @name)] @definition.class

(impl_item
  type: [
    (type_identifier) @name
    (generic_type type: (type_identifier) @name)
    (scoped_type_identifier name: (type_identifier) @name)
    (generic_type type: (scoped_type_identifier name: (type_identifier) @name))
  ]) @definition.impl

(mod_item name: (identifier) @name body: (_)) @definition.module

(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @definition.function
(macro_definition name: (identifier) @name) @definition.function

(use_declaration argument: (_) @name) @reference.import

; references (the code graph): calls by the called name; a trait an impl block implements
(call_expression function: [(identifier) @name (scoped_identifier name: (identifier) @name) (field_expression field: (field_identifier) @name)]) @reference.call
(impl_item trait: [(type_identifier) @name (scoped_type_identifier name: (type_identifier) @name) (generic_type type: (type_identifier) @name)]) @reference.inherits
