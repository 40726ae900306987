; Definitions of Go source (locfix tags; capture names as in tree-sitter's tags.scm).
; A method is qualified by its receiver type (`func (s *Server) Run()` -> Server.Run).

(function_declaration name: (identifier) @name) @definition.function

(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [
        (type_identifier) @receiver
        (pointer_type (type_identifier) @receiver)
        (generic_type type: (type_identifier) @receiver)
        (pointer_type (generic_type type: (type_identifier) @receiver))
      ]))
  name: (field_identifier) @name) @definition.method

(type_declaration (type_spec name: (type_identifier) @name type: [(struct_type) (interface_type)]) @definition.class)

(import_spec path: (_) @name) @reference.import

; references (the code graph): calls by the called name
(call_expression function: [(identifier) @name (selector_expression field: (field_identifier) @name)]) @reference.call
